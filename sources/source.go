package sources

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/internal/human"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// Bar is one 1-minute bar: the trades in [Start, Start+1m).
type Bar struct {
	Start  time.Time      // bar start, UTC, aligned to the minute
	Close  numeric.Scaled // last trade in the minute, × 10^8, in the adjustment of Coverage().Adjustment
	Volume int64          // shares traded, 0 when the provider does not say
}

// Adjustment says which corporate actions are folded into the prices a source returns.
type Adjustment string

// The adjustments a source can return.
const (
	Raw                   Adjustment = "raw"    // as traded: the shares of the minute
	SplitAdjusted         Adjustment = "splits" // every later split divided in
	SplitDividendAdjusted Adjustment = "splits+dividends"
)

// Coverage is what a source can answer: it lets the reconciler skip a source for a minute it
// cannot see, and backfill plan its windows.
type Coverage struct {
	Sessions []market.Session // sessions whose trades the bars include
	Lookback time.Duration    // how far back 1-minute history reaches; 0 means no limit
	// Since is the oldest minute the provider's 1-minute history holds at all, whatever the
	// plan (Alpha Vantage: 2000-01); zero when the provider does not say.
	Since      time.Time
	MaxWindow  time.Duration // widest [from, to) one request may ask for
	Adjustment Adjustment    // of the bars Bars returns
	Delay      time.Duration // how long after a minute closes its bar can be asked for
	// FinalAfter is how long after a minute ends the source's bar for it is final: a bar
	// fetched sooner is provisional (its close may still change), and a minute with no bar
	// yet may still get one (see Final). 0: final when the minute ends.
	FinalAfter time.Duration
	Rate       Rate  // the request rate the source is held to
	Quota      Quota // the requests it may send per hour, day or month (quota.go)

	// How the provider divides history into requests, which sets the fewest requests a range
	// costs (the backfill's floor). Cut is how one request's window is bounded; Dates is the
	// number of whole dates of a CutDates request; Page is how many bars one response holds
	// (across every symbol of a multi-symbol request), 0 when the provider sets no such limit.
	//
	// Paged says the provider follows a window of any width page by page (a next-page token or
	// URL, or a cursor the adapter moves): the source is a Pager, the backfill asks for the whole
	// range at once and commits page by page, and the floor is ⌈bars ÷ Page⌉. Otherwise the
	// provider is limited by its window, and the floor is the number of windows: MaxWindow, the
	// month or the run of dates of Cut, and at most Page minutes of its sessions when Page is set.
	Cut   Cut
	Dates int
	Page  int
	Paged bool
}

// Cut is how a provider bounds the window of one request.
type Cut int

const (
	// CutSpan: any window up to MaxWindow is one request.
	CutSpan Cut = iota
	// CutMonth: one New York calendar month per request (Alpha Vantage's month=).
	CutMonth
	// CutDates: Dates whole dates per request, which the adapter asks for in both their New York
	// and UTC readings (DateRanges): a window must end by New York midnight of its (Dates−1)th day.
	CutDates
)

// FinalAt is when the source's bar for the minute that starts at minute is final: FinalAfter
// after the minute ends.
func (c Coverage) FinalAt(minute time.Time) time.Time {
	return minute.Add(time.Minute + c.FinalAfter)
}

// Final reports whether what the source said at fetched about the minute that starts at minute
// is final: a bar fetched then will not change, and no bar then means the minute will get none.
func (c Coverage) Final(minute, fetched time.Time) bool {
	return !fetched.Before(c.FinalAt(minute))
}

// Covers reports whether the coverage includes a session.
func (c Coverage) Covers(s market.Session) bool {
	for _, have := range c.Sessions {
		if have == s {
			return true
		}
	}
	return false
}

// Source is one provider of 1-minute bars.
type Source interface {
	// Name is the source's name in sources.yaml.
	Name() string
	// Bars returns the 1-minute bars of one provider symbol that start in [from, to), sorted by
	// start, with the provider's quirks undone: bar start in UTC, prices as exact scaled
	// integers, raw where the provider can give raw prices. A window with no trades is an empty
	// slice and no error; a window wider than Coverage().MaxWindow is split by the adapter.
	Bars(ctx context.Context, symbol string, from, to time.Time) ([]Bar, error)
	// Coverage says what the source can answer.
	Coverage() Coverage
}

// FinalAtClose as Settings.FinalAfter (final_after: 0 in sources.yaml) says the source's bar is
// final the moment its minute ends, whatever its type's default.
const FinalAtClose time.Duration = -1

// UndocumentedFinalAfter is the final_after of a provider that documents nothing about when its
// minute bar is final, and of the generic types: a minute, twice the 30 s after which Alpaca
// recalculates a bar for late-reported trades (exchanges have 10 s to report a trade: "Bars are
// calculated, and available, 1 second after the close of each minute … the bar is then
// recalculated after 30 seconds", alpaca.markets/learn-api/stock-minute-bars). Conservative: a
// source is waited for a little longer than a documented one, never trusted sooner.
const UndocumentedFinalAfter = 60 * time.Second

// Kinds of failure. Adapters return an *Error whose Kind is one of these, so callers can tell a
// closed market from a broken source with errors.Is.
var (
	ErrNoData            = errors.New("no data")
	ErrRateLimited       = errors.New("rate limited")
	ErrUnauthorized      = errors.New("unauthorized")
	ErrBadResponse       = errors.New("bad response")
	ErrUnsupportedWindow = errors.New("unsupported window")
	ErrUnavailable       = errors.New("unavailable") // timeouts, connection errors, 5xx
	ErrUnknownSymbol     = errors.New("unknown symbol")
	ErrNoKey             = errors.New("no key")
)

// Error is what an adapter returns when a request fails. It never carries a secret: URLs in it
// are redacted (see Redact).
type Error struct {
	Source     string
	Kind       error         // one of the Err* kinds above
	Status     int           // HTTP status, 0 when there was no response
	RetryAfter time.Duration // for ErrRateLimited, when the provider said
	Msg        string        // what went wrong, in the provider's words where it gave any
	Err        error         // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", human.Duration(e.RetryAfter))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is match both the kind and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Errorf builds an *Error of a kind with a formatted message.
func Errorf(source string, kind error, format string, args ...any) *Error {
	return &Error{Source: source, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Settings is one resolved entry of sources.yaml's sources: block, as the registry hands it to a
// factory. Secrets are already read from the environment; they must never be logged or put in an
// error.
type Settings struct {
	Name    string
	Type    string
	BaseURL string
	Key     string // from the variable named by key_env; "" when the source needs none
	Secret  string // from the variable named by secret_env
	Rate    Rate   // zero means the type's default
	Timeout time.Duration
	Retries int // 0: DefaultRetries; NoRetries (or any negative count): none
	// FinalAfter is sources.yaml's final_after: how long after a minute ends the source's bar
	// is final. 0: the type's Factory.FinalAfter; FinalAtClose (any negative value): when the
	// minute ends.
	FinalAfter time.Duration
	// Quota is sources.yaml's quota: nil means the type's DefaultQuota, NoQuota none.
	Quota Quota
	// Options holds the type's own keys (for example alpaca's feed, json's price_path), as
	// declared in its Factory.Options.
	Options map[string]string
}

// Deps are what a source gets from its host: the clock, the logger and the HTTP transport, so
// tests can inject a fake clock and a loopback server.
type Deps struct {
	Now       func() time.Time
	Logger    *slog.Logger
	Transport http.RoundTripper // nil means http.DefaultTransport
	// Budget counts every request against its source's quota and keeps its breaker (quota.go):
	// the host's store, shared by every process on it; nil means a MemoryBudget per client.
	Budget Budget
	// Pacer holds each request of the source to its pace before it is sent: a backfill's, shared
	// by every window of the source and waiting on the backfill's clock. nil: the client paces at
	// its rate's Pace itself.
	Pacer Pacer
}

// WithDefaults fills the zero fields of d.
func (d Deps) WithDefaults() Deps {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return d
}

// Factory builds sources of one type: the type's facts (its options, key, base URL and rate)
// and its constructor. Each adapter declares one Factory value and registers it with Adapter,
// which makes its New run the prologue every adapter shares on those same facts, so what
// sources.yaml may set and what the constructor accepts cannot drift apart.
type Factory struct {
	// Type is the type's name in sources.yaml (type: alpaca), and the name Keyed gives a source
	// built with none (sources.yaml always names its sources; a test or a script may not).
	Type string
	// Options lists the type's own keys that sources.yaml may set, with a one-line help each.
	Options map[string]string
	// Required lists the options that must be set.
	Required []string
	// NeedsKey and NeedsSecret say whether the type needs key_env / secret_env.
	NeedsKey, NeedsSecret bool
	// KeyEnv and SecretEnv are the environment variables the shipped sources.yaml names for
	// them (MASSIVE_API_KEY): what `pricerig sim` prints and the docs list.
	KeyEnv, SecretEnv string
	// KeyHelp is what a missing key says ("tiingo needs an API token"); "" says that the type
	// needs an API key (and a secret, with NeedsSecret).
	KeyHelp string
	// BaseURL is the provider's API, base_url's default; "" for a generic type, whose
	// sources.yaml must set base_url.
	BaseURL string
	// DefaultRate is the rate a source is held to when sources.yaml sets none.
	DefaultRate Rate
	// FinalAfter is final_after's default: how long after a minute ends the provider's bar for
	// it is final, from its documentation or recorded behaviour (each adapter cites it in its
	// README and beside its DefaultFinalAfter). 0: final when the minute ends.
	FinalAfter time.Duration
	// DefaultQuota is the provider's free-tier quota (its README cites it), which a source is
	// held to when sources.yaml sets no quota: nil when the provider publishes none.
	DefaultQuota Quota
	// New builds a source. Adapter sets it to Keyed (so a bad option is an *OptionError naming
	// its key and a missing key is ErrNoKey) followed by Build.
	New func(s Settings, d Deps) (Source, error)
	// Build is the adapter's own constructor, which New hands the settings Keyed resolved; nil
	// for a factory registered with its New alone (Register).
	Build func(s Settings, d Deps) (Source, error)
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// Register makes a source type available to sources.yaml. Adapters register through Adapter;
// a test may register a fake of its own.
func Register(typ string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[typ]; dup {
		panic("sources: type " + typ + " registered twice")
	}
	registry[typ] = f
}

// Lookup returns the factory of a source type.
func Lookup(typ string) (Factory, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	f, ok := registry[typ]
	return f, ok
}

// Types lists the registered source types, sorted.
func Types() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for t := range registry {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
