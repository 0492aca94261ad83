package sim

// When a provider serves a minute's bar, and when that bar's close is final: real providers
// publish late and revise (Yahoo serves the minute in progress; Alpaca recalculates a bar 30 s
// after the minute for late-reported trades; Massive re-sends bars late trades change), and the
// simulator does the same, each emulation by its provider's documented or recorded behaviour
// (Emulation.Publish), changed per provider with SetPublication (`pricerig sim --lag`,
// `--revise`) or for every provider at once with Options.Instant.

import (
	"fmt"
	"time"

	"github.com/pricerig/pricerig/numeric"
)

// Publication is when a provider serves the bar of a minute and when its close is final, both
// counted from the minute's end.
type Publication struct {
	// Lag: a minute's bar is first served Lag after the minute ends. −1m serves the minute in
	// progress (as Yahoo does); 0 serves it the moment it ends.
	Lag time.Duration
	// Revise: until Revise after the minute ends, the bar is served with a provisional close,
	// which then changes once, to the tape's. A Revise not past Lag serves the final close
	// from the first (no revision).
	Revise time.Duration
}

// Instant is the publication of the world before providers were known to publish late: every
// bar served the moment its minute ends, and final.
var Instant = Publication{}

// LateWorld is issue 24's world, for the tests and benchmarks of fresh minutes: the providers
// that answer a regular minute publish its bar 25–45 s after it ends and serve a provisional
// close until they revise it, within 40 s (Alpaca by its documentation: at 30 s). Each
// provider's default final_after covers it (Alpaca 35 s, the others 60 s).
func LateWorld() map[string]Publication {
	return map[string]Publication{
		"yahoo":      {Lag: 45 * time.Second, Revise: 40 * time.Second}, // served final, that late
		"alpaca":     {Lag: 25 * time.Second, Revise: 30 * time.Second},
		"twelvedata": {Lag: 35 * time.Second, Revise: 40 * time.Second},
		"tiingo":     {Lag: 30 * time.Second, Revise: 40 * time.Second},
		"pyth":       {Lag: 40 * time.Second, Revise: 40 * time.Second},
		"finnhub":    {Lag: 25 * time.Second, Revise: 40 * time.Second},
		"fmp":        {Lag: 25 * time.Second, Revise: 40 * time.Second},
	}
}

// MinLag is the earliest a bar can be served: from the start of its minute, as the minute in
// progress.
const MinLag = -time.Minute

// maxPublication bounds a lag or a revision: the simulator serves a week at most late.
const maxPublication = 7 * 24 * time.Hour

// Check says what is wrong with a publication, or nil.
func (p Publication) Check() error {
	if p.Lag < MinLag || p.Lag > maxPublication {
		return fmt.Errorf("lag %s: want from %s (the minute in progress) to %s", p.Lag, MinLag, maxPublication)
	}
	if p.Revise < 0 || p.Revise > maxPublication {
		return fmt.Errorf("revise %s: want from 0 (no revision) to %s", p.Revise, maxPublication)
	}
	return nil
}

func (p Publication) String() string {
	var served string
	switch {
	case p.Lag == MinLag:
		served = "serves the minute in progress"
	case p.Lag < 0:
		served = fmt.Sprintf("serves a bar %s before its minute ends", -p.Lag)
	case p.Lag == 0:
		served = "serves a bar when its minute ends"
	default:
		served = fmt.Sprintf("serves a bar %s after its minute ends", p.Lag)
	}
	if p.Revise <= p.Lag {
		return served + ", final"
	}
	if p.Revise == 0 {
		return served + ", provisional until the minute ends"
	}
	return fmt.Sprintf("%s, provisional until %s after it", served, p.Revise)
}

// SetPublication sets when a provider serves a minute's bar and when its close is final, in
// place of its emulation's default (or of Options.Instant).
func (s *Server) SetPublication(provider string, p Publication) {
	if err := p.Check(); err != nil {
		panic("sim: " + err.Error())
	}
	s.with(provider, func(st *providerState) { st.pub = p })
}

// DefaultPublication is a provider's publication by its emulation (Emulation.Publish): its
// documented or recorded behaviour. Instant for an unknown provider.
func DefaultPublication(provider string) Publication {
	if e := emulationOf(provider); e != nil {
		return e.Publish
	}
	return Instant
}

// Publication is when a provider serves a minute's bar and when its close is final now.
func (s *Server) Publication(provider string) Publication {
	var p Publication
	s.with(provider, func(st *providerState) { p = st.pub })
	return p
}

// published is the end of the minutes a provider serves at now: a minute's bar is served from
// Lag after the minute ends.
func published(now time.Time, p Publication) time.Time {
	return now.Add(-p.Lag).Truncate(time.Minute)
}

// provisionalUntil says whether a bar of the minute at start is provisional at now.
func (p Publication) provisionalAt(start, now time.Time) bool {
	return p.Revise > p.Lag && now.Before(start.Add(time.Minute+p.Revise))
}

// cent is one US cent, scaled.
const cent = numeric.Scaled(1_000_000)

// provisional is the close a provider serves before the late trade that revises it is in: the
// bar's open (the price the minute's trades started at, all a provider has seen of a minute in
// progress), or a cent above the close when the minute opened and closed at the same price. The
// high is raised to hold it, and nothing else changes.
func provisional(b OHLCV) OHLCV {
	if b.O != b.C {
		b.C = b.O
		return b
	}
	b.C += cent
	b.H = max(b.H, b.C)
	return b
}

// Provisional is the raw close a provider serves for a minute before it revises it (while its
// Publication says the close is provisional): what a price taken too early reads. false when the
// tape did not trade in the minute (or has not closed it).
func (t *Tape) Provisional(symbol string, minute time.Time) (numeric.Scaled, bool) {
	if _, ok := t.Bar(symbol, minute); !ok {
		return 0, false
	}
	b, _ := t.bar(symbol, minute.Truncate(time.Minute))
	return provisional(b).C, true
}
