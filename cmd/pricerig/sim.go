package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

func init() { register(newSimCmd) }

// simSource is how sources.yaml names the credentials of one simulated provider: the variables
// its type's factory declares.
type simSource struct{ keyEnv, secretEnv string }

func simSourceOf(provider string) simSource {
	f, _ := sources.Lookup(provider)
	return simSource{keyEnv: f.KeyEnv, secretEnv: f.SecretEnv}
}

func newSimCmd(a *app) *cobra.Command {
	var addr string
	var seed int64
	var rateLimit int
	var latency, cacheFor time.Duration
	var faults, drifts, splits, lags, revises []string
	var instant bool
	cmd := &cobra.Command{
		Use:   "sim [--addr HOST:PORT] [--seed N] [--rate-limit N] [--latency D] [--cache-for D] [--fault P=KIND] [--drift P=BPS] [--split P=RATIO@DATE] [--lag P=D] [--revise P=D] [--instant]",
		Short: "Serve every quote provider's API from a deterministic simulated tape",
		Long: `Serve simulated quote APIs on one loopback address until interrupted (Ctrl-C).

Every provider pricerig reads (yahoo, alpaca, massive, twelvedata, alphavantage, tiingo, pyth,
finnhub, fmp, and a generic TradingView UDF endpoint) is served under /<provider>/ in its real wire
format — paths, parameters, auth, pagination, window errors, rate limits — over one deterministic
tape of NVDA, TSLA and SPY minute bars (2020–2028, with the real splits). Point a source's base_url
at the printed URL and it works unchanged.

The command prints the base URL of each provider, the environment to export (the simulator accepts
only the key sim-key and the secret sim-secret) and a sources.yaml "sources:" block, then serves.

Faults, for trying the audit and the reconciler against a broken source (each flag repeatable):
  --fault PROVIDER=KIND     timeout, 5xx, truncated, error-in-200, wrong-symbol or unauthorized
  --drift PROVIDER=BPS      every price of the provider off by BPS basis points
  --split PROVIDER=R@DATE   the provider pretends an unrecorded R-for-1 split on DATE (YYYY-MM-DD)

Providers publish late and revise, as the real ones do (each flag repeatable; P may be "all"):
  --lag PROVIDER=D          a minute's bar is served D after the minute ends (-1m: the minute
                            in progress, as Yahoo serves it)
  --revise PROVIDER=D       the bar's close is provisional until D after the minute ends, then
                            changes once, to the tape's
  --instant                 every bar served final the moment its minute ends (before the flags)
By default each provider does what its documentation or recorded behaviour says: Yahoo serves
the minute in progress, Alpaca a bar 1 s after its minute and revised at 30 s, Massive revised at
10 s; the others serve it final when the minute ends. The setup printed says each one's.

--cache-for D answers a request asked before (same path and query) with the body rendered then,
for D, like a cache in front of a provider: the same bytes, so a benchmark run again measures
the client rather than the simulator's rendering. A provider with a fault, drift or split is
never answered from the cache; every request still counts against --rate-limit.`,
		Example: `  pricerig sim --addr 127.0.0.1:8787
  pricerig sim --addr 127.0.0.1:8787 --seed 7 --rate-limit 5 --latency 150ms
  pricerig sim --fault yahoo=5xx --drift alpaca=40 --split tiingo=2@2026-11-20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rateLimit < 0 {
				return badInput("--rate-limit must be 0 (unlimited) or a positive count, got %d", rateLimit)
			}
			if latency < 0 {
				return badInput("--latency must not be negative, got %s", latency)
			}
			if cacheFor < 0 {
				return badInput("--cache-for must not be negative, got %s", cacheFor)
			}
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return badInput("--addr %q: want HOST:PORT, like 127.0.0.1:8787", addr)
			}
			s := sim.New(sim.Options{Seed: seed, RateLimit: rateLimit, Latency: latency, CacheFor: cacheFor, Instant: instant})
			if err := applySimFaults(s, faults, drifts, splits); err != nil {
				return badInput("%v", err)
			}
			if err := applySimPublication(s, lags, revises); err != nil {
				return badInput("%v", err)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return failed("listen on %s: %v", addr, err)
			}
			ctx := cmd.Context()
			root := "http://" + ln.Addr().String()
			// the simulator's key is public (it is its setup), not a secret to redact even when
			// a source in this process was built with it
			printSimSetup(redact.Underlying(a.stdout), s, root, seed)

			srv := &http.Server{
				Handler:           s,
				ReadHeaderTimeout: 10 * time.Second,
				// requests die with the command, so a hanging fault or a long latency cannot hold
				// up the shutdown
				BaseContext: func(net.Listener) context.Context { return ctx },
			}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			select {
			case <-ctx.Done():
			case err := <-served:
				s.Close()
				return failed("serving %s: %v", root, err)
			}
			s.Close()
			stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(stop); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return failed("shutting down: %v", err)
			}
			fmt.Fprintln(a.stderr, "pricerig sim: stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8787", "address to listen on; port 0 picks a free one")
	cmd.Flags().Int64Var(&seed, "seed", 1, "seed of the simulated tape: the same seed serves the same bars")
	cmd.Flags().IntVar(&rateLimit, "rate-limit", 0, "requests per provider per minute before 429 with Retry-After; 0 is unlimited")
	cmd.Flags().DurationVar(&latency, "latency", 0, "delay added to every response, like 150ms")
	cmd.Flags().DurationVar(&cacheFor, "cache-for", 0, "serve a request asked before the body rendered then, for this long (like 10m); 0 renders every answer")
	cmd.Flags().StringArrayVar(&faults, "fault", nil, "PROVIDER=KIND: make a provider fail (timeout, 5xx, truncated, error-in-200, wrong-symbol, unauthorized)")
	cmd.Flags().StringArrayVar(&drifts, "drift", nil, "PROVIDER=BPS: shift every price of a provider by BPS basis points")
	cmd.Flags().StringArrayVar(&splits, "split", nil, "PROVIDER=RATIO@YYYY-MM-DD: a split only this provider applies")
	cmd.Flags().StringArrayVar(&lags, "lag", nil, "PROVIDER=DURATION: serve each bar that long after its minute ends (-1m: the minute in progress); PROVIDER may be all")
	cmd.Flags().StringArrayVar(&revises, "revise", nil, "PROVIDER=DURATION: serve a provisional close until that long after the minute ends, then the final one; PROVIDER may be all")
	cmd.Flags().BoolVar(&instant, "instant", false, "every provider serves a bar final the moment its minute ends (then --lag and --revise)")
	return cmd
}

// applySimPublication reads the --lag and --revise flags into the simulator's providers.
func applySimPublication(s *sim.Server, lags, revises []string) error {
	pubs, err := simPublications(s.Publication, lags, revises)
	for p, pub := range pubs {
		s.SetPublication(p, pub)
	}
	return err
}

// simPublications reads the --lag and --revise flags (PROVIDER=DURATION, PROVIDER may be "all")
// over each provider's publication by base: the publications of the providers they change.
func simPublications(base func(provider string) sim.Publication, lags, revises []string) (map[string]sim.Publication, error) {
	out := map[string]sim.Publication{}
	set := func(flag string, args []string, apply func(*sim.Publication, time.Duration)) error {
		for _, arg := range args {
			p, v, ok := strings.Cut(arg, "=")
			d, err := time.ParseDuration(v)
			if !ok || err != nil {
				return fmt.Errorf("--%s %q: want PROVIDER=DURATION, like yahoo=25s", flag, arg)
			}
			providers := []string{p}
			if p == "all" {
				providers = sim.Providers()
			} else if !slices.Contains(sim.Providers(), p) {
				return fmt.Errorf("--%s %q: unknown provider %q (want all or one of %s)", flag, arg, p, strings.Join(sim.Providers(), ", "))
			}
			for _, name := range providers {
				pub, seen := out[name]
				if !seen {
					pub = base(name)
				}
				apply(&pub, d)
				if err := pub.Check(); err != nil {
					return fmt.Errorf("--%s %q: %v", flag, arg, err)
				}
				out[name] = pub
			}
		}
		return nil
	}
	if err := set("lag", lags, func(p *sim.Publication, d time.Duration) { p.Lag = d }); err != nil {
		return nil, err
	}
	if err := set("revise", revises, func(p *sim.Publication, d time.Duration) { p.Revise = d }); err != nil {
		return nil, err
	}
	return out, nil
}

// applySimFaults reads the --fault, --drift and --split flags into the simulator.
func applySimFaults(s *sim.Server, faults, drifts, splits []string) error {
	provider := func(flag, arg string) (string, string, error) {
		p, v, ok := strings.Cut(arg, "=")
		if !ok || v == "" {
			return "", "", fmt.Errorf("--%s %q: want PROVIDER=VALUE", flag, arg)
		}
		if !slices.Contains(sim.Providers(), p) {
			return "", "", fmt.Errorf("--%s %q: unknown provider %q (want one of %s)", flag, arg, p, strings.Join(sim.Providers(), ", "))
		}
		return p, v, nil
	}
	for _, arg := range faults {
		p, v, err := provider("fault", arg)
		if err != nil {
			return err
		}
		f, err := sim.ParseFault(v)
		if err != nil {
			return fmt.Errorf("--fault %q: %v", arg, err)
		}
		s.SetFault(p, f)
	}
	for _, arg := range drifts {
		p, v, err := provider("drift", arg)
		if err != nil {
			return err
		}
		bps, err := strconv.Atoi(v)
		if err != nil || bps <= -10_000 || bps > 10_000 {
			return fmt.Errorf("--drift %q: want basis points between -9999 and 10000", arg)
		}
		s.SetDriftBps(p, bps)
	}
	for _, arg := range splits {
		p, v, err := provider("split", arg)
		if err != nil {
			return err
		}
		r, d, ok := strings.Cut(v, "@")
		ratio, rerr := strconv.Atoi(r)
		on, derr := time.ParseInLocation("2006-01-02", d, market.NewYork)
		if !ok || rerr != nil || ratio < 2 || ratio > 1000 || derr != nil {
			return fmt.Errorf("--split %q: want PROVIDER=RATIO@YYYY-MM-DD, a whole ratio 2..1000", arg)
		}
		s.SetExtraSplit(p, ratio, on.Add(4*time.Hour)) // splits take effect at 04:00 New York
	}
	return nil
}

// printSimSetup writes what a user needs to point pricerig at the simulator: base URLs, the
// environment to export and a ready-to-paste sources.yaml block.
func printSimSetup(w io.Writer, s *sim.Server, root string, seed int64) {
	providers := sim.Providers()
	width := 0
	for _, p := range providers {
		width = max(width, len(p))
	}
	fmt.Fprintf(w, "pricerig sim: %d simulated providers on %s (seed %d)\n\nbase URLs (and when each serves a minute's bar):\n", len(providers), root, seed)
	for _, p := range providers {
		fmt.Fprintf(w, "  %-*s  %s  (%s)\n", width, p, s.BaseURL(root, p), s.Publication(p))
	}
	fmt.Fprintln(w, "\nexport these (the simulator accepts only these credentials):")
	for _, p := range providers {
		src := simSourceOf(p)
		if src.keyEnv != "" {
			fmt.Fprintf(w, "export %s=%s\n", src.keyEnv, sim.Key)
		}
		if src.secretEnv != "" {
			fmt.Fprintf(w, "export %s=%s\n", src.secretEnv, sim.Secret)
		}
	}
	fmt.Fprintln(w, "\nsources.yaml:")
	fmt.Fprintln(w, "sources:")
	for _, p := range providers {
		src := simSourceOf(p)
		fields := []string{"type: " + p, "base_url: " + s.BaseURL(root, p)}
		if src.keyEnv != "" {
			fields = append(fields, "key_env: "+src.keyEnv)
		}
		if src.secretEnv != "" {
			fields = append(fields, "secret_env: "+src.secretEnv)
		}
		if p == "udf" { // a generic endpoint: its coverage is configuration
			fields = append(fields, fmt.Sprintf("sessions: %q", sessionList(sim.Sessions(p))))
		}
		fmt.Fprintf(w, "  %-*s {%s}\n", width+1, p+":", strings.Join(fields, ", "))
	}
	fmt.Fprintf(w, "# pyth names symbols %s; every other provider uses the ticker.\n", sim.ProviderSymbol("pyth", "NVDA"))
	fmt.Fprintln(w, "\nserving; Ctrl-C to stop.")
}

func sessionList(ss []market.Session) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}
