package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

func init() { register(newSimCmd) }

// simSource is how sources.yaml names the credentials (and any option the simulator needs) of
// one simulated provider.
type simSource struct {
	keyEnv, secretEnv string
	extra             string // more flow-mapping entries, already formatted
}

var simSources = map[string]simSource{
	"yahoo":        {},
	"alpaca":       {keyEnv: "ALPACA_API_KEY_ID", secretEnv: "ALPACA_API_SECRET_KEY", extra: "feed: iex"},
	"massive":      {keyEnv: "MASSIVE_API_KEY"},
	"twelvedata":   {keyEnv: "TWELVEDATA_API_KEY"},
	"alphavantage": {keyEnv: "ALPHAVANTAGE_API_KEY"},
	"tiingo":       {keyEnv: "TIINGO_API_KEY"},
	"pyth":         {keyEnv: "PYTH_API_KEY"},
	"finnhub":      {keyEnv: "FINNHUB_API_KEY"},
	"fmp":          {keyEnv: "FMP_API_KEY"},
	"udf":          {},
}

func newSimCmd(a *app) *cobra.Command {
	var addr string
	var seed int64
	var rateLimit int
	var latency time.Duration
	cmd := &cobra.Command{
		Use:   "sim [--addr HOST:PORT] [--seed N] [--rate-limit N] [--latency D]",
		Short: "Serve every quote provider's API from a deterministic simulated tape",
		Long: `Serve simulated quote APIs on one loopback address until interrupted (Ctrl-C).

Every provider pricerig reads (yahoo, alpaca, massive, twelvedata, alphavantage, tiingo, pyth,
finnhub, fmp, and a generic TradingView UDF endpoint) is served under /<provider>/ in its real wire
format — paths, parameters, auth, pagination, window errors, rate limits — over one deterministic
tape of NVDA, TSLA and SPY minute bars (2020–2028, with the real splits). Point a source's base_url
at the printed URL and it works unchanged.

The command prints the base URL of each provider, the environment to export (the simulator accepts
only the key sim-key and the secret sim-secret) and a sources.yaml "sources:" block, then serves.`,
		Example: `  pricerig sim --addr 127.0.0.1:8787
  pricerig sim --addr 127.0.0.1:8787 --seed 7 --rate-limit 5 --latency 150ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rateLimit < 0 {
				return badInput("--rate-limit must be 0 (unlimited) or a positive count, got %d", rateLimit)
			}
			if latency < 0 {
				return badInput("--latency must not be negative, got %s", latency)
			}
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return badInput("--addr %q: want HOST:PORT, like 127.0.0.1:8787", addr)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return failed("listen on %s: %v", addr, err)
			}
			ctx := cmd.Context()
			s := sim.New(sim.Options{Seed: seed, RateLimit: rateLimit, Latency: latency})
			root := "http://" + ln.Addr().String()
			printSimSetup(a.stdout, s, root, seed)

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
	return cmd
}

// printSimSetup writes what a user needs to point pricerig at the simulator: base URLs, the
// environment to export and a ready-to-paste sources.yaml block.
func printSimSetup(w io.Writer, s *sim.Server, root string, seed int64) {
	providers := sim.Providers()
	width := 0
	for _, p := range providers {
		width = max(width, len(p))
	}
	fmt.Fprintf(w, "pricerig sim: %d simulated providers on %s (seed %d)\n\nbase URLs:\n", len(providers), root, seed)
	for _, p := range providers {
		fmt.Fprintf(w, "  %-*s  %s\n", width, p, s.BaseURL(root, p))
	}
	fmt.Fprintln(w, "\nexport these (the simulator accepts only these credentials):")
	for _, p := range providers {
		src := simSources[p]
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
		src := simSources[p]
		fields := []string{"type: " + p, "base_url: " + s.BaseURL(root, p)}
		if src.keyEnv != "" {
			fields = append(fields, "key_env: "+src.keyEnv)
		}
		if src.secretEnv != "" {
			fields = append(fields, "secret_env: "+src.secretEnv)
		}
		if src.extra != "" {
			fields = append(fields, src.extra)
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
