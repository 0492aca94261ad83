package sources

import (
	"context"
	"log/slog"
	"time"
)

// Adapter registers an adapter's type and returns its one Factory: f with Build, and with New
// running Keyed on f and then Build. The adapter keeps the value (var factory =
// sources.Adapter(sources.Factory{…}, build)) and builds through its New.
func Adapter(f Factory, build func(s Settings, d Deps) (Source, error)) Factory {
	f.Build = build
	facts := f
	f.New = func(s Settings, d Deps) (Source, error) {
		s, err := Keyed(s, facts)
		if err != nil {
			return nil, err
		}
		return build(s, d)
	}
	Register(f.Type, f)
	return f
}

// Base is the part of a Source every adapter shares, embedded in its Source: the client built
// from the settings Keyed resolved (which holds the source's name), the key, the host's clock and
// logger, and the coverage the adapter declares. It answers Name and Coverage, and checks a
// window the one way every adapter does (Check), so an adapter's own code is its options, its
// requests and its decoder.
type Base struct {
	client *Client
	key    string
	now    func() time.Time
	log    *slog.Logger
	cov    Coverage
}

// NewBase is the end of every adapter's New: s as Keyed returned it (name, key, base URL and
// rate resolved), the client built from it with the provider's options, and the coverage the
// adapter declares, whose Rate is the rate the client paces at and whose FinalAfter is the
// settings' (FinalAtClose is 0).
func NewBase(s Settings, d Deps, o ClientOptions, cov Coverage) Base {
	d = d.WithDefaults()
	cov.Rate, cov.Quota = s.Rate, s.Quota
	cov.FinalAfter = max(s.FinalAfter, 0)
	return Base{client: NewClient(s, d, o), key: s.Key, now: d.Now, log: d.Logger, cov: cov}
}

// Name is the source's name in sources.yaml.
func (b *Base) Name() string { return b.client.Name() }

// Coverage says what the source can answer, as its adapter declared it.
func (b *Base) Coverage() Coverage { return b.cov }

// Client is the source's HTTP client.
func (b *Base) Client() *Client { return b.client }

// Key is the source's key ("" for a type that needs none), for a provider that takes it in the
// query; the client redacts it from every URL it logs or puts in an error.
func (b *Base) Key() string { return b.key }

// Now is the host's clock.
func (b *Base) Now() time.Time { return b.now() }

// Logger is the host's logger, for what the source has to warn about.
func (b *Base) Logger() *slog.Logger { return b.log }

// Check is the window check every adapter's Bars starts with: CheckWindow with the source's name
// and its coverage's lookback.
func (b *Base) Check(symbol string, from, to time.Time) error {
	return CheckWindow(b.Name(), symbol, from, to, b.cov.Lookback, b.now())
}

// OneTicker is the Bars and Pages of a Pager whose provider answers one ticker a request
// (massive, twelvedata), made from the one function that reads a window of a symbol page by page
// (read, handing each page tidied to the window with what it proves). An adapter embeds it in its
// Source in place of a Base.
type OneTicker struct {
	Base
	read func(ctx context.Context, symbol string, from, to time.Time, each func(Page) error) error
}

// NewOneTicker is b with Bars and Pages made from read.
func NewOneTicker(b Base, read func(ctx context.Context, symbol string, from, to time.Time, each func(Page) error) error) OneTicker {
	return OneTicker{Base: b, read: read}
}

// Bars returns the bars of symbol that start in [from, to): the window checked, read in windows
// of the coverage's MaxWindow page by page, and tidied to the minutes closed by now.
func (o *OneTicker) Bars(ctx context.Context, symbol string, from, to time.Time) ([]Bar, error) {
	if err := o.Check(symbol, from, to); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	var all []Bar
	for _, w := range Windows(from, to, o.cov.MaxWindow) {
		err := o.read(ctx, symbol, w.From, w.To, func(p Page) error {
			all = Join(all, p.Bars[symbol])
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return Tidy(all, from, ClosedBy(to, o.Now())), nil
}

// Pages asks for [from, to) of each symbol in turn, whatever its width, after checking the window
// of every one: each symbol's window is proven on its own, and what a page proves is where it
// resumes, so it hands no Next and takes no resume.
func (o *OneTicker) Pages(ctx context.Context, symbols []string, from, to time.Time, _ string, each func(Page) error) error {
	if err := CheckWindows(o.Name(), symbols, from, to); err != nil {
		return err
	}
	for _, sym := range symbols {
		if err := o.read(ctx, sym, from.UTC(), to.UTC(), each); err != nil {
			return err
		}
	}
	return nil
}
