// Command benchkit is scripts/bench-backfill's helper, in a module of its own so that the
// official Alpaca Go SDK it runs stays out of pricerig's go.mod:
//
//	benchkit floor --from DATE --to DATE --symbols NVDA,TSLA,SPY
//	    prints, as JSON, each provider's floor for the range counted from the simulator's tape
//	    itself (the bars every emulation serves), not from anything pricerig fetched or stored.
//	benchkit sdk --base URL --from DATE --to DATE --symbols NVDA,TSLA,SPY [--page-limit N]
//	    fetches the range's 1-minute bars with the SDK's GetMultiBars from a running
//	    `pricerig sim` and prints the requests it made, its bars, wall time and CPU time.
//
// Dates are New York calendar dates: the range starts at the first one's midnight and includes
// the last one whole, as `pricerig backfill` reads them.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alpacahq/alpaca-trade-api-go/v3/marketdata"

	"github.com/pricerig/pricerig/market"
	_ "github.com/pricerig/pricerig/sources/all" // the emulations register with their adapters
	"github.com/pricerig/pricerig/sources/sim"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchkit floor|sdk [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "floor":
		err = floor(os.Args[2:])
	case "sdk":
		err = sdk(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (floor or sdk)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchkit:", err)
		os.Exit(2)
	}
}

// rangeOf reads the dates the way pricerig backfill does.
func rangeOf(from, to string) (time.Time, time.Time, error) {
	a, err := time.ParseInLocation(time.DateOnly, from, market.NewYork)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("--from: %v", err)
	}
	b, err := time.ParseInLocation(time.DateOnly, to, market.NewYork)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("--to: %v", err)
	}
	return a.UTC(), b.AddDate(0, 0, 1).UTC(), nil
}

// The providers' own limits (their documentation; the adapters declare the same numbers).
const (
	alpacaPage     = 10000 // bars a page, across the symbols of one request
	massivePage    = 50000 // base aggregates a request
	twelvedataPage = 5000  // outputsize: points a request
	yahooWindow    = 8 * 24 * time.Hour
)

type floors struct {
	From         time.Time      `json:"from"`
	To           time.Time      `json:"to"`
	Bars         map[string]any `json:"bars"` // provider -> symbol -> bars
	AlpacaOne    int            `json:"alpaca_one"`
	AlpacaBatch  int            `json:"alpaca_batch"`
	Massive      int            `json:"massive"`
	Twelvedata   int            `json:"twelvedata"`
	Alphavantage int            `json:"alphavantage"`
	Yahoo        int            `json:"yahoo"`
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func floor(args []string) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	fromText := fs.String("from", "", "first date")
	toText := fs.String("to", "", "last date (included)")
	symbolsText := fs.String("symbols", "NVDA,TSLA,SPY", "symbols")
	yahooFrom := fs.String("yahoo-from", "", "first date of the yahoo range (its 29-day lookback), default --from")
	yahooTo := fs.String("yahoo-to", "", "last date of the yahoo range, default --to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	from, to, err := rangeOf(*fromText, *toText)
	if err != nil {
		return err
	}
	yf, yt := from, to
	if *yahooFrom != "" {
		if yf, yt, err = rangeOf(*yahooFrom, *yahooTo); err != nil {
			return err
		}
	}
	tape := sim.New(sim.Options{}).Tape() // the seed and the clock of `pricerig sim`'s defaults
	symbols := strings.Split(*symbolsText, ",")
	out := floors{From: from, To: to, Bars: map[string]any{}}
	// each calls fn with every bar the provider serves of symbol in [a, b)
	each := func(provider, symbol string, a, b time.Time, fn func(time.Time)) {
		sessions := sim.Sessions(provider)
		name := sim.ProviderSymbol(provider, symbol)
		for m := a; m.Before(b); m = m.Add(time.Minute) {
			if s, ok := market.SessionAt(m); !ok || !slices.Contains(sessions, s) {
				continue
			}
			if _, ok := tape.Bar(name, m); ok {
				fn(m)
			}
		}
	}
	count := func(provider string, a, b time.Time) map[string]int {
		n := map[string]int{}
		for _, sym := range symbols {
			each(provider, sym, a, b, func(time.Time) { n[sym]++ })
		}
		out.Bars[provider] = n
		return n
	}
	alpaca := count("alpaca", from, to)
	total := 0
	for _, sym := range symbols {
		total += alpaca[sym]
	}
	out.AlpacaOne = ceilDiv(alpaca[symbols[0]], alpacaPage)
	out.AlpacaBatch = ceilDiv(total, alpacaPage)
	for _, n := range count("massive", from, to) {
		out.Massive += ceilDiv(n, massivePage)
	}
	for _, n := range count("twelvedata", from, to) {
		out.Twelvedata += ceilDiv(n, twelvedataPage)
	}
	count("alphavantage", from, to)
	count("yahoo", yf, yt)
	for _, sym := range symbols {
		months := map[string]bool{}
		each("alphavantage", sym, from, to, func(m time.Time) { months[m.In(market.NewYork).Format("2006-01")] = true })
		out.Alphavantage += len(months)
		end := yf
		each("yahoo", sym, yf, yt, func(m time.Time) {
			if !m.Before(end) {
				out.Yahoo++
				end = m.Add(yahooWindow)
			}
		})
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// counter counts the HTTP requests the SDK sends.
type counter struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func sdk(args []string) error {
	fs := flag.NewFlagSet("sdk", flag.ContinueOnError)
	base := fs.String("base", "", "the simulator's alpaca base URL (pricerig sim prints it)")
	fromText := fs.String("from", "", "first date")
	toText := fs.String("to", "", "last date (included)")
	symbolsText := fs.String("symbols", "NVDA,TSLA,SPY", "symbols")
	pageLimit := fs.Int("page-limit", 0, "GetBarsRequest.PageLimit (0: the SDK's default, the server's page size)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *base == "" {
		return fmt.Errorf("--base is required")
	}
	from, to, err := rangeOf(*fromText, *toText)
	if err != nil {
		return err
	}
	c := &counter{next: http.DefaultTransport}
	client := marketdata.NewClient(marketdata.ClientOpts{
		APIKey: sim.Key, APISecret: sim.Secret, BaseURL: *base, Feed: marketdata.IEX,
		HTTPClient: &http.Client{Transport: c, Timeout: time.Minute},
	})
	startCPU, start := cpu(), time.Now()
	bars, err := client.GetMultiBars(strings.Split(*symbolsText, ","), marketdata.GetBarsRequest{
		TimeFrame:  marketdata.OneMin,
		Adjustment: marketdata.Raw,
		Start:      from,
		End:        to.Add(-time.Second), // the SDK's end is inclusive
		PageLimit:  *pageLimit,
	})
	wall, used := time.Since(start), cpu()-startCPU
	if err != nil {
		return err
	}
	n := 0
	for _, b := range bars {
		n += len(b)
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"page_limit": *pageLimit, "requests": c.n.Load(), "bars": n,
		"wall_ms": wall.Milliseconds(), "cpu_ms": used.Milliseconds(),
	})
}
