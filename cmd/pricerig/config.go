package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/sim"
)

func init() { register(newConfigCmd) }

// specGetenv is where secrets named by key_env and secret_env are read; tests replace it.
var specGetenv = os.Getenv

// specFlags are the flags of every command that reads sources.yaml.
type specFlags struct {
	config string
	sim    string
}

func (f *specFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.config, "config", "", "the spec `FILE` to read (default ./sources.yaml if it exists, else the one built in)")
	cmd.Flags().StringVar(&f.sim, "sim", "", "point every source at the provider simulator at `URL` (the address pricerig sim prints, like http://127.0.0.1:8787)")
}

// simInstant says the simulator --sim names serves every bar final when its minute ends
// (sim.Options.Instant): a test that starts one in-process sets it, so the spec trusts its bars
// at once (feeds.SimTarget.Instant) instead of waiting out each provider's final_after.
var simInstant bool

// load reads the spec: --config, else ./sources.yaml, else the embedded default. Problems in the
// file are bad input (exit 2) and come back as one error with every problem on its own line.
func (f *specFlags) load() (*feeds.Spec, error) {
	opts := feeds.LoadOptions{Getenv: specGetenv}
	if f.sim != "" {
		root, err := simRoot(f.sim)
		if err != nil {
			return nil, badInput("--sim: %v", err)
		}
		opts.Sim = &feeds.SimTarget{Root: root, Key: sim.Key, Secret: sim.Secret, Instant: simInstant}
	}
	var spec *feeds.Spec
	var err error
	switch {
	case f.config != "":
		spec, err = feeds.LoadFile(f.config, opts)
	case specFileExists(feeds.DefaultFile):
		spec, err = feeds.LoadFile(feeds.DefaultFile, opts)
	default:
		opts.File = "<built-in sources.yaml>"
		spec, err = feeds.Load(pricerig.DefaultSpec, opts)
	}
	if err != nil {
		var le *feeds.LoadError
		if errors.As(err, &le) {
			return nil, badInput("%d problem%s in the spec:\n%w", len(le.Problems), specPlural(len(le.Problems)), err)
		}
		if errors.Is(err, fs.ErrNotExist) && f.config != "" {
			// named as missing, not as the stat call that found it so
			return nil, badInput("--config %s: no such file (without --config, ./%s is read if it exists, else the built-in spec)", f.config, feeds.DefaultFile)
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, badInput("the spec %s cannot be read: permission denied", cmp.Or(f.config, feeds.DefaultFile))
		}
		return nil, badInput("%v", err)
	}
	return spec, nil
}

// logger is what a command that asks the sources hands them, so their warnings (a retry, a 429
// waited out, bars labelled oddly) reach the user on stderr; debug and info stay quiet.
func (a *app) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// warn prints the spec's warnings (skipped sources) to stderr.
func (a *app) warn(spec *feeds.Spec) {
	for _, w := range spec.Warnings {
		fmt.Fprintln(a.stderr, "pricerig: warning:", w)
	}
}

func simRoot(text string) (string, error) {
	u, err := url.Parse(text)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return "", fmt.Errorf("%q: want the simulator's root URL, like http://127.0.0.1:8787", text)
	}
	return strings.TrimRight(text, "/"), nil
}

func specFileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func specPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func newConfigCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the spec (sources.yaml)",
	}
	cmd.AddCommand(newConfigCheckCmd(a))
	return cmd
}

func newConfigCheckCmd(a *app) *cobra.Command {
	var sf specFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check [--config FILE] [--sim URL] [--json]",
		Short: "Validate sources.yaml and print it resolved",
		Long: `Load the spec, check every key, and print it resolved: each source with its type, base URL,
rate and quota, whether its keys are set and what it covers; the feeds; the splits; the warnings (a source
whose key variable is unset is skipped, not an error).

Exit 0 when the spec loads; exit 2 with every problem (file:line: key: message) when it does not.`,
		Example: `  pricerig config check
  pricerig config check --config ./my-sources.yaml --json
  pricerig config check --sim http://127.0.0.1:8787`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			spec, err := sf.load()
			if err != nil {
				if asJSON {
					problems := []string{err.Error()} // one problem: no file, or a bad flag
					var le *feeds.LoadError
					if errors.As(err, &le) {
						problems = make([]string, len(le.Problems))
						for i, p := range le.Problems {
							problems[i] = p.String()
						}
					}
					_ = json.NewEncoder(a.stdout).Encode(map[string]any{"ok": false, "errors": problems})
				}
				return err
			}
			view := specViewOf(spec)
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(view)
			}
			printSpec(a.stdout, view)
			return nil
		},
	}
	sf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// specView is the resolved spec as config check prints it. It never holds a secret.
type specView struct {
	OK        bool              `json:"ok"`
	File      string            `json:"file"`
	Version   int               `json:"version"`
	SpecURI   string            `json:"spec_uri"`
	Job       jobView           `json:"job"`
	Reconcile reconcileView     `json:"reconcile"`
	Sources   []sourceView      `json:"sources"`
	Feeds     []feedView        `json:"feeds"`
	Splits    map[string]string `json:"splits"`
	Warnings  []string          `json:"warnings"`
}

type jobView struct {
	ID           uint32 `json:"id"`
	Scale        int    `json:"scale"`
	ToleranceBps uint32 `json:"tolerance_bps"`
	Quorum       int    `json:"quorum"`
	Price        string `json:"price"` // ETH, exact
	Slash        string `json:"slash"`
}

type reconcileView struct {
	MinSources  int      `json:"min_sources"`
	OutlierBps  uint32   `json:"outlier_bps"`
	MaxCarry    string   `json:"max_carry"`
	Window      string   `json:"window"`
	Deadline    string   `json:"deadline"`
	EarlyQuorum string   `json:"early_quorum"`
	Sessions    []string `json:"sessions"`
}

type sourceView struct {
	Name       string            `json:"source"`
	Type       string            `json:"type"`
	BaseURL    string            `json:"base_url"`
	Rate       string            `json:"rate"`
	Quota      string            `json:"quota"` // its requests an hour, a day or a month: "none" without one
	Keys       string            `json:"keys"`  // set, not needed, or missing
	Missing    string            `json:"missing,omitempty"`
	Sessions   []string          `json:"sessions"`
	Lookback   string            `json:"lookback"`
	MaxWindow  string            `json:"max_window"`
	Adjustment string            `json:"adjustment"`
	Delay      string            `json:"delay"`
	FinalAfter string            `json:"final_after"` // how long after its minute a bar is final
	Options    map[string]string `json:"options,omitempty"`
}

type feedView struct {
	Symbol  string            `json:"symbol"`
	Sources map[string]string `json:"sources"`
	order   []string
}

func specViewOf(spec *feeds.Spec) specView {
	r := spec.Rules
	v := specView{
		OK: true, File: spec.File, Version: spec.Version, SpecURI: spec.SpecURI,
		Job: jobView{spec.Job.ID, spec.Job.Scale, spec.Job.ToleranceBps, spec.Job.Quorum, numeric.FormatETH(spec.Job.Price), numeric.FormatETH(spec.Job.Slash)},
		Reconcile: reconcileView{
			MinSources: r.MinSources, OutlierBps: r.OutlierBps, MaxCarry: specDuration(r.MaxCarry),
			Window: specDuration(r.Window), Deadline: specDuration(r.Deadline), Sessions: specSessions(r.Sessions),
		},
		Splits:   map[string]string{},
		Warnings: []string{},
	}
	switch {
	case r.EarlyQuorum == feeds.WaitForAll:
		v.Reconcile.EarlyQuorum = "all"
	case r.EarlyQuorum <= 0:
		v.Reconcile.EarlyQuorum = "majority"
	default:
		v.Reconcile.EarlyQuorum = fmt.Sprint(r.EarlyQuorum)
	}
	for _, s := range spec.Sources {
		sv := sourceView{
			Name: s.Name, Type: s.Type, BaseURL: s.BaseURL, Rate: s.Rate.String(), Quota: s.Quota.String(),
			Sessions: specSessions(s.Coverage.Sessions), Lookback: specLimit(s.Coverage.Lookback),
			MaxWindow: specLimit(s.Coverage.MaxWindow), Adjustment: string(s.Coverage.Adjustment),
			Delay: specDuration(s.Coverage.Delay), FinalAfter: specDuration(s.Coverage.FinalAfter), Options: s.Options,
		}
		switch {
		case !s.Usable():
			sv.Keys, sv.Missing = "missing", s.Missing
		case s.KeyEnv == "" && s.SecretEnv == "" && !s.NeedsKey && !s.NeedsSecret:
			sv.Keys = "not needed"
		default:
			sv.Keys = "set"
		}
		if len(sv.Options) == 0 {
			sv.Options = nil
		}
		v.Sources = append(v.Sources, sv)
	}
	for _, f := range spec.Feeds {
		fv := feedView{Symbol: f.Symbol, Sources: map[string]string{}}
		for _, fs := range f.Sources {
			fv.Sources[fs.Source] = fs.Symbol
			fv.order = append(fv.order, fs.Source)
		}
		v.Feeds = append(v.Feeds, fv)
	}
	for symbol, list := range spec.Splits {
		parts := make([]string, len(list))
		for i, s := range list {
			parts[i] = fmt.Sprintf("%s %d:1", s.Date.Format(time.DateOnly), s.Ratio)
		}
		v.Splits[symbol] = strings.Join(parts, ", ")
	}
	for _, w := range spec.Warnings {
		v.Warnings = append(v.Warnings, w.String())
	}
	return v
}

func printSpec(w io.Writer, v specView) {
	fmt.Fprintf(w, "%s: version %d, spec_uri %s\n", v.File, v.Version, specOrDash(v.SpecURI))
	fmt.Fprintf(w, "job %d: answers × 10^%d, tolerance %d bps, quorum %d, %s ETH a task, slash %s ETH\n", v.Job.ID, v.Job.Scale, v.Job.ToleranceBps, v.Job.Quorum, v.Job.Price, v.Job.Slash)
	rc := v.Reconcile
	fmt.Fprintf(w, "reconcile: min_sources %d, outlier_bps %d, max_carry %s, window %s, deadline %s, early_quorum %s, sessions %s\n",
		rc.MinSources, rc.OutlierBps, rc.MaxCarry, rc.Window, rc.Deadline, rc.EarlyQuorum, strings.Join(rc.Sessions, ", "))

	fmt.Fprintln(w, "\nsources:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTYPE\tBASE URL\tRATE\tQUOTA\tKEYS\tSESSIONS\tLOOKBACK\tMAX WINDOW\tADJUSTMENT\tDELAY\tFINAL AFTER")
	for _, s := range v.Sources {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Type, s.BaseURL, s.Rate, s.Quota, s.Keys,
			strings.Join(s.Sessions, ","), s.Lookback, s.MaxWindow, s.Adjustment, s.Delay, s.FinalAfter)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nfeeds:")
	for _, f := range v.Feeds {
		parts := make([]string, len(f.order))
		for i, name := range f.order {
			parts[i] = name + "=" + f.Sources[name]
		}
		fmt.Fprintf(w, "  %s: %s\n", f.Symbol, strings.Join(parts, " "))
	}
	if len(v.Splits) > 0 {
		fmt.Fprintln(w, "\nsplits:")
		for _, f := range v.Feeds { // feed order first, then any other symbol
			if s, ok := v.Splits[f.Symbol]; ok {
				fmt.Fprintf(w, "  %s: %s\n", f.Symbol, s)
			}
		}
		for symbol, s := range v.Splits {
			if !hasFeed(v.Feeds, symbol) {
				fmt.Fprintf(w, "  %s: %s\n", symbol, s)
			}
		}
	}
	if len(v.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings:")
		for _, warning := range v.Warnings {
			fmt.Fprintln(w, "  "+warning)
		}
	}
	usable := 0
	for _, s := range v.Sources {
		if s.Missing == "" {
			usable++
		}
	}
	fmt.Fprintf(w, "\nok: %d of %d sources usable\n", usable, len(v.Sources))
}

func hasFeed(fs []feedView, symbol string) bool {
	for _, f := range fs {
		if f.Symbol == symbol {
			return true
		}
	}
	return false
}

func specSessions(ss []market.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// specDuration prints whole days as "29d" and trims Go's zero units ("30m", not "30m0s").
func specDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// specLimit is specDuration where zero means no limit.
func specLimit(d time.Duration) string {
	if d == 0 {
		return "unlimited"
	}
	return specDuration(d)
}

func specOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
