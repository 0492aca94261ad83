package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/human"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

func init() { register(newPriceCmd) }

// priceNow is the clock of the commands that price; tests set it to the simulator's.
var priceNow = time.Now

// priceWait waits until priceNow reads until (the reconciler's Deps.Wait); nil is a real timer.
// Tests move their clock instead.
var priceWait func(ctx context.Context, until time.Time) error

// defaultFinalityWait is price's --wait default: long enough for the slowest provider's default
// final_after (Massive's late-trade window), plus a minute for the request and the provider's
// own lag, so that a minute asked the moment it closes is answered from final bars.
func defaultFinalityWait() time.Duration {
	slowest := time.Duration(0)
	for _, typ := range sources.Types() {
		if f, ok := sources.Lookup(typ); ok {
			slowest = max(slowest, f.FinalAfter)
		}
	}
	return slowest + time.Minute
}

// priceOutput is the JSON `pricerig price --json` prints.
type priceOutput struct {
	Symbol    string        `json:"symbol"`
	Minute    string        `json:"minute"`
	Price     string        `json:"price,omitempty"`
	Scaled    int64         `json:"price_e8,omitempty"`
	Answer    string        `json:"answer_bytes32,omitempty"`
	Sources   []quoteOutput `json:"sources"`
	Agreed    bool          `json:"agreed"`
	Reason    string        `json:"reason,omitempty"`
	Effective string        `json:"effective_minute,omitempty"` // when the minute is outside the sessions
	Session   string        `json:"session,omitempty"`
	Median    string        `json:"median,omitempty"` // before the outlier cut
	Store     string        `json:"store,omitempty"`  // the backfilled store it came from (--db)
	// NotFinal names the sources whose bar for the minute was not final yet when the command
	// answered (provisional, or not published yet).
	NotFinal []string `json:"not_final,omitempty"`
}

type quoteOutput struct {
	Name        string  `json:"source"`
	Symbol      string  `json:"symbol,omitempty"`
	Price       *string `json:"price"`
	BarTime     *string `json:"bar_time"`
	Status      string  `json:"status"`
	DistanceBps *string `json:"distance_bps"`
	Error       string  `json:"error,omitempty"`
	// ErrorKind is a failed request's kind: rate_limited, unauthorized, body_too_large…
	ErrorKind sources.ErrorKind `json:"error_kind,omitempty"`
	LatencyMs int64             `json:"latency_ms"`
	// Final says the source had said its last word on the minute when it was asked (its bar
	// is past its final_after, or it has none there for good); FetchedAt is when it was asked.
	Final     bool   `json:"final"`
	FetchedAt string `json:"fetched_at,omitempty"`
}

func newPriceCmd(a *app) *cobra.Command {
	var f priceFlags
	cmd := &cobra.Command{
		Use:   "price [--config FILE] [--sim URL] [--db FILE|URL | --no-cache] [--wait D | --no-wait] [--json] SYMBOL MINUTE",
		Short: "Reconcile the price of a symbol at a UTC minute from every source",
		Long: `Ask every source of the symbol's feed for the minute at once and reconcile them as job 2 does:
the close of the bar that starts at MINUTE, else the latest earlier bar within max_carry (a minute
outside the sessions, like a Saturday, prices at the last in-session print); the lower median of
the sources; outliers beyond outlier_bps dropped; the lower median of the rest, if at least
min_sources remain. The answer is price × 10^8.

MINUTE is RFC 3339 UTC (2026-11-27T15:30Z or 2026-11-27T15:30:00Z) or unix seconds, aligned to
the minute. The table shows every source's price, bar time, status and distance to the answer.

Every bar a source returns is kept in a bar ledger, and the price is derived from what it holds:
--db names its store (a SQLite file or a postgres:// URL, made if missing; a minute a backfill
stored there is answered without a fetch), else the per-user store every command shares
($XDG_CACHE_HOME/pricerig/ledger.db: a minute 'pricerig backfill' stored is answered from it),
and --no-cache keeps none. A source is asked only for what the ledger lacks: the provider's whole
window around the minute (its date, or the month or dates it answers at once), or the rest of a
day still growing. A source past its quota (sources.yaml quota:, else its free tier's) is not
asked: its status is over_quota until it has room again; one whose rate: has no request free
before the deadline is not asked either: paced.

A source's bar is final only once its final_after has passed (sources.yaml; each provider's
documented default): before that its close may still change, and a minute it has no bar for may
still get one, so it is "not_final", never carried from the minute before and never counted. A
minute that closed too recently is waited for (--wait, default the slowest provider's default
final_after plus a minute): each source is asked again when it is final, and the answer comes as
soon as enough final prices agree (the early quorum). --no-wait answers from the sources final
now, or says which are not final yet.

Exit 0 with an answer; 1 with a one-line reason when there is none (too few sources agree, the
minute has not closed, is not final yet, or is older than every source's history); 2 for bad
input (unknown symbol, malformed or unaligned minute, a bad spec).`,
		Example: `  pricerig price NVDA 2026-11-27T15:30Z
  pricerig price --json TSLA 1795793400
  pricerig price --sim http://127.0.0.1:8787 --json SPY 2026-11-27T15:30:00Z
  pricerig price --no-wait NVDA 2026-11-27T15:30Z`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.dbGiven = cmd.Flags().Changed("db")
			return runPrice(cmd.Context(), a, f, args[0], args[1])
		},
	}
	f.spec.register(cmd)
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&f.db, "db", "", "the store to answer from and keep the bars in (a SQLite `FILE` or a postgres:// URL, made if missing): a minute backfilled there needs no fetch, and the sources are asked only for what it lacks (default: the per-user store backfill fills, $XDG_CACHE_HOME/pricerig/"+cacheFile+")")
	cmd.Flags().BoolVar(&f.noCache, "no-cache", false, "keep no bars: without --db, ask the sources for everything and count their quotas in this process only")
	cmd.Flags().DurationVar(&f.wait, "wait", defaultFinalityWait(), "how long to wait for sources whose bar is not final yet (a minute that just closed)")
	cmd.Flags().BoolVar(&f.noWait, "no-wait", false, "answer from the sources final now, or say which are not final yet (exit 1)")
	cmd.MarkFlagsMutuallyExclusive("wait", "no-wait")
	return cmd
}

// priceFlags are price's flags.
type priceFlags struct {
	spec             specFlags
	asJSON, noWait   bool
	noCache, dbGiven bool
	db               string
	wait             time.Duration
}

// runPrice prices symbol at minute: from the store when it holds the minute (history.StoreFirst,
// the rule the rig answers by too), else derived from the bar ledger, the sources asked for what
// it lacks.
func runPrice(ctx context.Context, a *app, f priceFlags, symbolArg, minuteArg string) error {
	if f.wait < 0 {
		return badInput("--wait must not be negative, got %s", f.wait)
	}
	if f.dbGiven {
		if err := storePath("--db", f.db); err != nil {
			return err
		}
	}
	symbol := strings.ToUpper(strings.TrimSpace(symbolArg))
	minute, err := feeds.ParseMinute(minuteArg)
	if err != nil {
		return badInput("minute: %v", err)
	}
	spec, err := f.spec.load()
	if err != nil {
		return err
	}
	if _, ok := spec.Feed(symbol); !ok {
		return badInput("unknown symbol %q: the spec has %s", symbolArg, strings.Join(spec.Symbols(), ", "))
	}
	a.warn(spec)
	store, err := openLedger(f.db, f.noCache, a.logger())
	if store != nil && f.db == "" {
		noteOldDefault(a.stderr, "price", store.Path())
	}
	if err != nil {
		return err
	}
	deps := feeds.Deps{Deps: sources.Deps{Now: priceNow, Logger: a.logger()}, Wait: a.sayWhatPriceWaitsFor(symbol, minute)}
	r, err := feeds.New(spec, ledgerDeps(deps, store))
	if err != nil {
		if store != nil {
			store.Close()
		}
		return failed("%v", err)
	}
	var opts []feeds.PriceOption
	if !f.noWait {
		opts = append(opts, feeds.WaitFinal(priceNow().Add(f.wait)))
	}
	var res feeds.Result
	stored := false
	if store != nil {
		defer store.Close()
		// the sources an early quorum left out keep their bars for the next minute
		defer r.Drain()
		res, stored, err = a.storeFirst(store, f.db != "", spec, r).Answer(ctx, symbol, minute, opts...)
		var unreadable *storeUnreadable
		if errors.As(err, &unreadable) {
			return failed("--db %s: %v", store.Path(), unreadable.err)
		}
	} else {
		res, err = r.Price(ctx, symbol, minute, opts...)
	}
	if stored {
		return a.printStored(store, res, f.asJSON)
	}
	switch {
	case errors.Is(err, feeds.ErrUnknownSymbol), errors.Is(err, feeds.ErrUnaligned), errors.Is(err, feeds.ErrBeforeCalendar):
		return badInput("%v", err)
	case errors.Is(err, feeds.ErrNotClosed):
		return failed("%v", err)
	}
	if f.asJSON {
		if jerr := json.NewEncoder(a.stdout).Encode(priceOutputOf(res)); jerr != nil {
			return jerr
		}
	} else {
		printPrice(a.stdout, res)
	}
	if err != nil {
		return failed("no price for %s at %s: %s", symbol, minute.Format(time.RFC3339), reasonOf(res, err))
	}
	return nil
}

func reasonOf(res feeds.Result, err error) string {
	if res.Reason != "" {
		return res.Reason
	}
	return err.Error()
}

func priceOutputOf(res feeds.Result) priceOutput {
	out := priceOutput{
		Symbol:   res.Symbol,
		Minute:   res.Minute.Format(time.RFC3339),
		Agreed:   res.Agreed,
		Reason:   res.Reason,
		Session:  string(res.Session),
		Sources:  []quoteOutput{},
		NotFinal: res.NotFinal(),
	}
	if res.Agreed {
		out.Price = res.Price.String()
		out.Scaled = int64(res.Price)
		out.Answer = numeric.AnswerHex(res.Price.Answer())
	}
	if res.Median > 0 {
		out.Median = res.Median.String()
	}
	if !res.Effective.IsZero() && !res.Effective.Equal(res.Minute) {
		out.Effective = res.Effective.Format(time.RFC3339)
	}
	for _, q := range res.Quotes {
		qo := quoteOutput{Name: q.Source, Symbol: q.Symbol, Status: string(q.Status), Error: q.Err, ErrorKind: q.Kind,
			LatencyMs: q.Latency.Milliseconds(), Final: q.Final}
		if !q.FetchedAt.IsZero() {
			qo.FetchedAt = q.FetchedAt.UTC().Format(time.RFC3339)
		}
		if q.Status.Priced() {
			p, t := q.Price.String(), q.BarTime.UTC().Format(time.RFC3339)
			qo.Price, qo.BarTime = &p, &t
			qo.Error = ""
		}
		if d := q.DistanceBps(); d != "" {
			qo.DistanceBps = &d
		}
		out.Sources = append(out.Sources, qo)
	}
	return out
}

func printPrice(w io.Writer, res feeds.Result) {
	fmt.Fprintf(w, "%s at %s", res.Symbol, res.Minute.Format(time.RFC3339))
	switch {
	case !res.Effective.IsZero() && !res.Effective.Equal(res.Minute):
		fmt.Fprintf(w, ": outside the sessions, priced at the last in-session minute %s (%s)\n", res.Effective.Format(time.RFC3339), res.Session)
	case res.Session != "":
		fmt.Fprintf(w, " (%s session)\n", res.Session)
	default:
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tSTATUS\tPRICE\tBAR TIME\tDISTANCE\tLATENCY\tNOTE")
	for _, q := range res.Quotes {
		price, bar, dist, note := "-", "-", "-", q.Err
		if q.Status.Priced() {
			price, bar, note = q.Price.String(), q.BarTime.UTC().Format(time.RFC3339), ""
		}
		if d := q.DistanceBps(); d != "" {
			dist = d + " bps"
		}
		latency := "-"
		if q.Requests > 0 {
			latency = q.Latency.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", q.Source, q.Status, price, bar, dist, latency, priceNote(note))
	}
	tw.Flush()
	if !res.Agreed {
		fmt.Fprintf(w, "\nno answer: %s\n", res.Reason)
		return
	}
	if nf := res.NotFinal(); len(nf) > 0 {
		fmt.Fprintf(w, "\nnot final yet: %s (the answer is from the final prices)", strings.Join(nf, ", "))
	}
	priced := 0
	for _, q := range res.Quotes {
		if q.Status.Priced() {
			priced++
		}
	}
	fmt.Fprintf(w, "\nanswer: %s  (scaled %d; %d of %d priced sources agree", res.Price, int64(res.Price), res.Survivors, priced)
	if res.Early {
		fmt.Fprint(w, "; stopped on an early quorum")
	}
	fmt.Fprintf(w, ")\nbytes32: %s\n", numeric.AnswerHex(res.Price.Answer()))
}

func priceNote(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// sayWhatPriceWaitsFor is the reconciler's wait with a line on stderr before each wait longer
// than a few seconds: what price waits for and until when, so a minute that just closed is no
// silent pause (its default --wait is the slowest provider's final_after plus a minute).
func (a *app) sayWhatPriceWaitsFor(symbol string, minute time.Time) func(ctx context.Context, until time.Time) error {
	wait := priceWait
	if wait == nil {
		wait = func(ctx context.Context, until time.Time) error {
			for d := until.Sub(priceNow()); d > 0; d = until.Sub(priceNow()) {
				t := time.NewTimer(d)
				select {
				case <-ctx.Done():
					t.Stop()
					return context.Cause(ctx)
				case <-t.C:
				}
			}
			return nil
		}
	}
	return func(ctx context.Context, until time.Time) error {
		if d := until.Sub(priceNow()); d > 3*time.Second {
			fmt.Fprintf(a.stderr, "pricerig price: waiting %s, until %s, for the sources' %s bars of %s to be final (--no-wait answers now; Ctrl-C stops)\n",
				human.Duration(d), until.UTC().Format("15:04:05 UTC"), symbol, minute.UTC().Format("15:04"))
		}
		return wait(ctx, until)
	}
}
