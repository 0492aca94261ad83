package main

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/sources"
)

func init() { register(newBarsCmd) }

// barOutput is one line of `pricerig bars`.
type barOutput struct {
	T      string `json:"time"`
	Close  string `json:"close"`
	Scaled int64  `json:"close_e8"`
}

func newBarsCmd(a *app) *cobra.Command {
	var sf specFlags
	var source string
	cmd := &cobra.Command{
		Use:   "bars [--config FILE] [--sim URL] --source NAME SYMBOL FROM TO",
		Short: "Print the 1-minute bars one source returns for [FROM, TO)",
		Long: `Ask one source of the spec for the 1-minute bars of SYMBOL that start in [FROM, TO) and print
them as the adapter returns them — bar start in UTC, the provider's own adjustment (Yahoo's are
split-adjusted), no carrying, no session filter — one JSON object per line:
{"time":"2026-11-27T15:30:00Z","close":"180.12","close_e8":18012000000}.

SYMBOL is a feed symbol (mapped to the source's own name for it, like Equity.US.NVDA/USD for
pyth) or, when the spec has no such feed, the provider's symbol as is. FROM and TO are RFC 3339
or unix seconds.

Exit 0 with the bars (none is not an error); 1 when the source fails; 2 for bad input.`,
		Example: `  pricerig bars --source yahoo NVDA 2026-11-27T15:00Z 2026-11-27T15:30Z
  pricerig bars --sim http://127.0.0.1:8787 --source pyth TSLA 2026-11-24T06:00Z 2026-11-24T07:00Z`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err := feeds.ParseTime(args[1])
			if err != nil {
				return badInput("FROM: %v", err)
			}
			to, err := feeds.ParseTime(args[2])
			if err != nil {
				return badInput("TO: %v", err)
			}
			if !to.After(from) {
				return badInput("TO %s must be after FROM %s", to.Format(time.RFC3339), from.Format(time.RFC3339))
			}
			spec, err := sf.load()
			if err != nil {
				return err
			}
			src, ok := spec.Source(source)
			if !ok {
				names := make([]string, len(spec.Sources))
				for i, s := range spec.Sources {
					names[i] = s.Name
				}
				return badInput("no source %q in the spec (it has %s)", source, strings.Join(names, ", "))
			}
			if !src.Usable() {
				return badInput("source %s is skipped: %s", src.Name, src.Missing)
			}
			symbol := strings.TrimSpace(args[0])
			if feed, ok := spec.Feed(strings.ToUpper(symbol)); ok {
				if ps, ok := feed.ProviderSymbol(src.Name); ok {
					symbol = ps
				}
			}
			s, err := feeds.BuildSource(src, sources.Deps{Now: priceNow, Logger: a.logger()})
			if err != nil {
				return failed("%v", err)
			}
			bars, err := s.Bars(cmd.Context(), symbol, from, to)
			if err != nil {
				return failed("%v", err)
			}
			enc := json.NewEncoder(a.stdout)
			for _, b := range bars {
				if err := enc.Encode(barOutput{T: b.Start.UTC().Format(time.RFC3339), Close: b.Close.String(), Scaled: int64(b.Close)}); err != nil {
					return err
				}
			}
			return nil
		},
	}
	sf.register(cmd)
	cmd.Flags().StringVar(&source, "source", "", "the source's name in the spec (required)")
	_ = cmd.MarkFlagRequired("source")
	return cmd
}
