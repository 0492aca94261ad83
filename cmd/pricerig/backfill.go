package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/backfill"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/human"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

func init() { register(newBackfillCmd) }

// backfillClock is what backfill reads and waits on: the commands' clock (priceNow) and real
// timers. Tests swap in a fake clock shared with the simulator, so rate-limit waits cost nothing.
var backfillClock backfill.Clock = commandClock{}

type commandClock struct{}

func (commandClock) Now() time.Time { return priceNow() }

func (commandClock) Sleep(ctx context.Context, d time.Duration) error {
	return backfill.RealClock{}.Sleep(ctx, d)
}

func newBackfillCmd(a *app) *cobra.Command {
	var f backfillFlags
	cmd := &cobra.Command{
		Use:   "backfill [--config FILE] [--sim URL] --from DATE|TIME --to DATE|TIME [--symbols NVDA,TSLA,SPY] [--sources a,b] [--db FILE|URL] [--sessions pre,regular,post] [--json]",
		Short: "Fill a local price history (SQLite) from the sources, resumably",
		Long: `Fetch every source's 1-minute bars of the symbols over a range and store them with, for every
minute of the sessions, the reconciled answer and its provenance — by the same rules as
'pricerig price', so 'pricerig price' can answer from the store with no request.

Each source is asked in the widest windows it allows (Alpha Vantage: calendar months; Massive:
30 days; Alpaca: several symbols per request, one page each), at its rate from the spec, waiting
out any 429. A source that cannot reach part of the range (Yahoo's 29 days, a plan's publication
delay) is skipped there and the summary says so.

It resumes: what was fetched is recorded per source and window, and a re-run — after Ctrl-C, a
kill or a failed window — fetches only what is missing and ends with the same database as an
uninterrupted run. Ctrl-C stops at a transaction boundary.

A DATE (2025-11-03) is a New York calendar date: --from starts at its midnight, --to includes
the whole date. A TIME is RFC 3339 or unix seconds, on a whole minute; --to is exclusive. A range
that is reversed, reaches past today, starts before 1970, or holds no minute any selected source
serves (all before its history, or not published yet) is refused before the store is created.
The store is --db, else the per-user store every command reads and writes by default
($XDG_CACHE_HOME/pricerig/ledger.db, else ~/.cache/pricerig/ledger.db), where price, explain
and audit then find it. Two backfills may run on one store at once: each waits for the other's
writes. --db takes a SQLite file or a PostgreSQL URL (postgres://user:password@host/db; the password is never
printed): several machines then fill and read one history, bulk-loaded with COPY.

On a terminal it draws a progress bar per source; otherwise it logs progress every 10 s. At the
end it prints a summary (--json: one JSON object). Exit 0 when every window was fetched; 1 when
interrupted or a window failed (run it again); 2 for bad input.

  pricerig backfill export --format csv|jsonl|parquet   writes the stored answers.`,
		Example: `  pricerig backfill --from 2025-11-01 --to 2025-11-30
  pricerig backfill --from 2026-01-05T14:30Z --to 2026-01-05T21:00Z --symbols NVDA --sources alpaca,massive
  pricerig backfill --sim http://127.0.0.1:8787 --from 2025-10-01 --to 2025-10-31 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.dbGiven = cmd.Flags().Changed("db")
			return runBackfill(cmd.Context(), a, f)
		},
	}
	f.spec.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "start of the range: a New York date (2025-11-03) or a UTC minute (RFC 3339 or unix seconds)")
	fl.StringVar(&f.to, "to", "", "end of the range: a date (included whole) or a minute (excluded)")
	fl.StringVar(&f.symbols, "symbols", "", "the feed `SYMBOLS` to fill, comma-separated (default: every feed of the spec)")
	fl.StringVar(&f.sources, "sources", "", "the `SOURCES` to ask, comma-separated (default: every source of the spec)")
	fl.StringVar(&f.db, "db", "", "the store to fill: a SQLite `FILE` (created when missing) or a postgres:// URL (default: the per-user store, $XDG_CACHE_HOME/pricerig/"+cacheFile+")")
	fl.StringVar(&f.sessions, "sessions", "", "comma-separated sessions to reconcile (default: the spec's)")
	fl.BoolVar(&f.asJSON, "json", false, "print the summary as one JSON object")
	fl.StringVar(&f.progress, "progress", "auto", "auto (bars on a terminal, else log lines), bar, log or off")
	_ = cmd.MarkFlagRequired("from")
	_ = cmd.MarkFlagRequired("to")
	cmd.AddCommand(newBackfillExportCmd(a))
	return cmd
}

// backfillFlags are backfill's flags.
type backfillFlags struct {
	spec                       specFlags
	from, to, symbols, sources string
	sessions, db, progress     string
	asJSON, dbGiven            bool
}

// runBackfill fills the store --db names over the range (feeds/backfill), showing its progress,
// and prints its summary: exit 1 when interrupted or a window failed, 2 for bad input.
func runBackfill(ctx context.Context, a *app, f backfillFlags) error {
	opts, mode, show, err := f.options(a)
	if err != nil {
		return err
	}
	// refused input leaves nothing behind: the store's file is made only for a run
	if err := backfill.Check(opts); err != nil {
		return backfillError(err)
	}
	if !f.dbGiven {
		if f.db, err = defaultStore(); err != nil {
			return err
		}
		noteOldDefault(a.stderr, "backfill", f.db)
	}
	store, err := history.Open(f.db)
	if err != nil {
		return failed("%v", err)
	}
	defer store.Close()
	opts.Deps = budgetDeps(opts.Deps, store) // the quotas every process on the store shares
	b, err := backfill.NewContext(ctx, store, opts)
	if err != nil {
		if ctx.Err() != nil {
			return failed("interrupted while planning: nothing was fetched; run the same command again")
		}
		return backfillError(err)
	}

	stop := make(chan struct{})
	var shown sync.WaitGroup
	shown.Add(1)
	go func() {
		defer shown.Done()
		watchProgress(b, mode, show, opts.Logger, stop)
	}()
	sum, runErr := b.Run(ctx)
	close(stop)
	shown.Wait()
	if sum != nil {
		if f.asJSON {
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(sum); err != nil {
				return err
			}
		} else {
			printSummary(a.stdout, sum, store.Path())
		}
	}
	switch {
	case runErr != nil:
		return failed("%v", runErr)
	case sum.Interrupted:
		return failed("interrupted: %d windows were stored; run the same command again to fetch the rest", sum.Windows)
	case sum.Failed > 0:
		return failed("%d windows failed (see the gaps); run the same command again to retry them", sum.Failed)
	}
	return nil
}

// options checks the flags and the spec and turns them into the backfill's options, with the
// progress mode, the bars it draws (mode "bar") and the logger that writes above them.
func (f backfillFlags) options(a *app) (opts backfill.Options, mode string, show *barDisplay, err error) {
	from, err := parseBound(f.from, false)
	if err != nil {
		return opts, "", nil, badInput("--from: %v", err)
	}
	to, err := parseBound(f.to, true)
	if err != nil {
		return opts, "", nil, badInput("--to: %v", err)
	}
	var sessions []market.Session
	if f.sessions != "" {
		if sessions, err = market.ParseSessions(splitList(f.sessions)); err != nil {
			return opts, "", nil, badInput("--sessions: %v", err)
		}
	}
	mode, err = progressMode(f.progress, a.stderr)
	if err != nil {
		return opts, "", nil, badInput("--progress: %v", err)
	}
	if f.dbGiven {
		if err := storePath("--db", f.db); err != nil {
			return opts, "", nil, err
		}
		registerDBSecrets(f.db)
	}
	spec, err := f.spec.load()
	if err != nil {
		return opts, "", nil, err
	}
	a.warn(spec)

	logOut := a.stderr
	if mode == "bar" {
		show = newBarDisplay(a.stderr)
		logOut = show // warnings print above the bars
	}
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if mode == "log" {
		logger = slog.New(slog.NewTextHandler(logOut, nil))
	}
	opts = backfill.Options{
		Spec: spec, Symbols: splitUpper(f.symbols), Sources: splitList(f.sources), Sessions: sessions,
		From: from, To: to, Clock: backfillClock, Deps: sources.Deps{Logger: logger}, Logger: logger,
	}
	return opts, mode, show, nil
}

// backfillError is exit 2 for the backfill's bad input, 1 otherwise.
func backfillError(err error) error {
	var bad *backfill.InputError
	if errors.As(err, &bad) {
		return badInput("%s", bad.Msg)
	}
	if errors.Is(err, backfill.ErrBadInput) {
		return badInput("%v", err)
	}
	return failed("%v", err)
}

// storePath refuses an empty path for a store or journal flag: "" names no file.
func storePath(flag, path string) error {
	if strings.TrimSpace(path) == "" {
		return badInput("%s: an empty path names no file", flag)
	}
	return nil
}

var dateOnly = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// parseBound reads --from or --to: a New York date (an end includes the whole date) or a minute.
func parseBound(text string, end bool) (time.Time, error) {
	s := strings.TrimSpace(text)
	if dateOnly.MatchString(s) {
		d, err := time.ParseInLocation(time.DateOnly, s, market.NewYork)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a date: %v", s, err)
		}
		if d.Year() < market.FirstYear {
			// New York kept local mean time before 1883: its midnight is no whole UTC minute
			return time.Time{}, fmt.Errorf("%s is before %d, the first year of the market calendar", s, market.FirstYear)
		}
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d.UTC(), nil
	}
	return feeds.ParseMinute(s)
}

func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func splitUpper(s string) []string {
	out := splitList(s)
	for i := range out {
		out[i] = strings.ToUpper(out[i])
	}
	return out
}

func printSummary(w io.Writer, s *backfill.Summary, db string) {
	state := "done"
	if s.Interrupted {
		state = "interrupted"
	}
	fmt.Fprintf(w, "backfill %s: %s, %s … %s (%s) into %s\n", state, strings.Join(s.Symbols, ", "),
		s.From.Format(time.RFC3339), s.To.Format(time.RFC3339), strings.Join(s.Sessions, ", "), db)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// one count a column: the minutes by status each have theirs (they were packed as a/b/c/d/e/f)
	fmt.Fprintln(tw, "SOURCE\tWINDOWS\tFAILED\tREQUESTS\tMINIMUM\t429s\tWAITED\tBARS\tOK\tCARRIED\tNO DATA\tOUTLIER\tNOT COVERED\tUNKNOWN")
	for _, src := range s.Sources {
		if src.Skipped != "" {
			fmt.Fprintf(tw, "%s\tskipped: %s\n", src.Source, src.Skipped)
			continue
		}
		m := src.Minutes
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", src.Source, src.Windows, src.Failed, src.Requests, src.MinRequests,
			src.RateLimited, human.Duration(src.Waited), src.Bars, m.OK, m.Carried, m.NoData, m.Outlier, m.NotCovered, m.Unknown)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d windows fetched with %d requests (the minimum is %d), %d rate limited; %d bars stored\n",
		s.Windows, s.Requests, s.MinRequests, s.RateLimited, s.Bars)
	fmt.Fprintf(w, "%d minutes reconciled: %d without agreement, %d incomplete", s.Minutes, s.NoAgreement, s.Incomplete)
	if s.Kept > 0 {
		fmt.Fprintf(w, "; %d already stored and left as they were", s.Kept)
	}
	fmt.Fprintf(w, "; %s\n", human.Duration(s.Elapsed))
	first := true
	for _, src := range s.Sources {
		for _, g := range src.Gaps {
			if first {
				fmt.Fprintln(w, "gaps:")
				first = false
			}
			kind := ""
			if g.Kind != "" {
				kind = " [" + string(g.Kind) + "]"
			}
			fmt.Fprintf(w, "  %s %s %s … %s: %s%s\n", src.Source, g.Symbol, g.From.Format(time.RFC3339), g.To.Format(time.RFC3339), g.Reason, kind)
		}
	}
}

func newBackfillExportCmd(a *app) *cobra.Command {
	var db, format, symbolsText, fromText, toText, out string
	var evidence bool
	cmd := &cobra.Command{
		Use:   "export [--db FILE|URL] --format csv|jsonl|parquet [--evidence] [--symbols NVDA,TSLA] [--from DATE|TIME] [--to DATE|TIME] [--out FILE]",
		Short: "Write the stored answers as CSV, JSON lines or Parquet",
		Long: `Write the reconciled answers of a backfilled store (--db, else the per-user store backfill fills
by default), ordered by symbol and minute: symbol, minute,
price (decimal), price_e8 (price × 10^8), sources, agreed, complete, error_kind. price and
price_e8 are empty when the sources did not agree. In CSV, sources lists each priced quote as
source:status:distance_bps, and error_kind each quote whose request failed as source:kind
(unauthorized, unavailable, rate_limited…); in JSON lines sources holds every quote with its
source, price, price_e8, bar_time, distance_bps, error and error_kind. complete is false when a source's window was
missing or failed, or a source was left out: such a minute is not the answer 'pricerig price'
would give.

Parquet (--format parquet, for analysts' tools) holds the same rows, sorted by symbol then minute,
in row groups of 65536 rows: minute (timestamp, UTC), symbol, price_e8 (int64, null without an
answer), price (decimal text), agreed, sources_agreed, complete, reason, session, and sources, a
repeated group of each source's source, status, price_e8, price, bar_time (timestamp),
distance_centibps, error and error_kind.

--evidence writes instead the evidence a rig's bar ledger keeps of each answer it committed
(--db rig.ledger.db, or the rig's PostgreSQL journal): in JSON lines one line a task (task,
symbol, minute, answered_at, price, price_e8, counted: the sources the answer was reconciled
from, and bars: every bar of every source its derivation read, with source, time, close,
close_e8, volume, fetched_at and final); in CSV one row a bar, its last column saying whether the bar's source
was counted.`,
		Example: `  pricerig backfill export --format csv > prices.csv
  pricerig backfill export --db rig.ledger.db --format jsonl --evidence
  pricerig backfill export --format jsonl --symbols NVDA --from 2025-11-03 --to 2025-11-07
  pricerig backfill export --db prices.db --format parquet --out prices.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != history.FormatCSV && format != history.FormatJSONL && format != history.FormatParquet {
				return badInput("--format %q: want csv, jsonl or parquet", format)
			}
			if evidence && format == history.FormatParquet {
				return badInput("--evidence exports as csv or jsonl")
			}
			var q history.Query
			var err error
			if fromText != "" {
				if q.From, err = parseBound(fromText, false); err != nil {
					return badInput("--from: %v", err)
				}
			}
			if toText != "" {
				if q.To, err = parseBound(toText, true); err != nil {
					return badInput("--to: %v", err)
				}
			}
			if !q.From.IsZero() && !q.To.IsZero() && !q.To.After(q.From) {
				return badInput("--to %s is not after --from %s", q.To.Format(time.RFC3339), q.From.Format(time.RFC3339))
			}
			q.Symbols = splitUpper(symbolsText)
			if !cmd.Flags().Changed("db") {
				if db, err = defaultStore(); err != nil {
					return err
				}
				noteOldDefault(a.stderr, "backfill export", db)
			}
			store, err := openHistory(db, failed)
			if err != nil {
				return err
			}
			defer store.Close()
			w := a.stdout
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return failed("--out: %v", err)
				}
				defer f.Close()
				w = f
			}
			export, what := store.Export, "answers"
			if evidence {
				export, what = store.ExportEvidence, "answers' evidence"
			}
			n, err := export(cmd.Context(), w, format, q)
			if err != nil {
				return failed("export: %v", err)
			}
			if out != "" {
				fmt.Fprintf(a.stderr, "pricerig: %d %s written to %s\n", n, what, out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&db, "db", "", "the store to read: a SQLite `FILE` or a postgres:// URL (default: the per-user store backfill fills, $XDG_CACHE_HOME/pricerig/"+cacheFile+")")
	f.BoolVar(&evidence, "evidence", false, "write the evidence a rig's ledger keeps of each answer it committed (the bars it was derived from) instead of the answers")
	f.StringVar(&format, "format", "csv", "csv, jsonl or parquet")
	f.StringVar(&symbolsText, "symbols", "", "the `SYMBOLS` to write, comma-separated (default: all)")
	f.StringVar(&fromText, "from", "", "first minute: a New York date or a UTC minute")
	f.StringVar(&toText, "to", "", "end: a date (included) or a minute (excluded)")
	f.StringVar(&out, "out", "", "write to this file instead of stdout")
	return cmd
}
