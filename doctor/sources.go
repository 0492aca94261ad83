package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Problems a source's check names.
const (
	MissingKey    = "missing_key"    // a key_env or secret_env variable is unset: the source is skipped
	KeyRefused    = "key_refused"    // the provider does not know the key
	PlanRefused   = "plan_refused"   // the provider knows the key; its plan lacks 1-minute bars
	RateLimited   = "rate_limited"   // the provider's limit (per minute, per day) is used up now
	Unreachable   = "unreachable"    // no answer: a timeout, a connection refused, a 5xx
	BadResponse   = "bad_response"   // an answer that is not 1-minute bars
	UnknownSymbol = "unknown_symbol" // the provider does not know the feed's symbol
	InNoFeed      = "in_no_feed"     // configured but no feed names it: never asked
	SourceFailed  = "source_failed"  // any other failure
	BarsLate      = "bars_late"      // the latest bar is older than final_after (and delay) allow
)

// probeSpan is how far before the source's final minutes the probe's window reaches: a few
// minutes of a liquid symbol, so its latest bar says whether the source publishes by its
// final_after, in one request of any adapter.
const probeSpan = 10 * time.Minute

// lateSlack is how many minutes past final_after (and delay) a source's latest bar may end
// before it is late: NVDA, TSLA and SPY trade every minute of a regular session, so three
// minutes without a bar is the source, not the market.
const lateSlack = 3 * time.Minute

// dated is a source that tells the Date header of its last response: every adapter's Base.
type dated interface {
	LastDate() (sources.ServerDate, bool)
}

// probe is what one source's check found: its lines and the Date header its answer carried.
type probe struct {
	source  string
	account string // the source's budget account (sources.AccountOf): its name, origin and key
	checks  []Check
	date    *sources.ServerDate
}

// probeSources asks every source of the spec for one window at once.
func probeSources(ctx context.Context, o Options) []probe {
	out := make([]probe, len(o.Spec.Sources))
	var wg sync.WaitGroup
	for i, s := range o.Spec.Sources {
		wg.Go(func() { out[i] = probeSource(ctx, o, s) })
	}
	wg.Wait()
	return out
}

// probeSource checks one source: its keys are set, then one request for one symbol of its feed
// over the last few minutes its final_after and delay make final — the key accepted, the plan
// entitled, the provider reachable — and how old the latest bar it answered is.
func probeSource(ctx context.Context, o Options, s feeds.SourceSpec) probe {
	p := probe{source: s.Name}
	line := Check{Check: "source", Subject: s.Name}
	if !s.Usable() {
		p.checks = []Check{missingKey(line, s)}
		return p
	}
	feed, symbol, ok := feedOf(o.Spec, s.Name)
	if !ok {
		line.Verdict, line.Problem = Warn, InNoFeed
		line.Detail = fmt.Sprintf("no feed names %s: it is never asked", s.Name)
		line.Fix = fmt.Sprintf("map a symbol to it under feeds: in sources.yaml, or remove %s", s.Name)
		p.checks = []Check{line}
		return p
	}
	s.Settings.Retries = sources.NoRetries // one request: a retry would hide the first answer
	src, err := feeds.BuildSource(s, o.Deps)
	if err != nil {
		line.Verdict, line.Problem, line.Detail = Fail, SourceFailed, err.Error()
		line.Fix = "correct the source in sources.yaml (pricerig config check names the key)"
		p.checks = []Check{line}
		return p
	}
	p.account = accountOf(s, src)
	cov := src.Coverage()
	now := o.Deps.Now()
	from := now.Add(-(cov.Delay + cov.FinalAfter + probeSpan)).Truncate(time.Minute)
	started := time.Now()
	bars, err := src.Bars(ctx, symbol, from, now)
	reasked := false
	if b, ok := o.Deps.Budget.(Budget); ok && errors.Is(err, sources.ErrNotSent) && sources.KindOf(err) == sources.KindUnauthorized {
		// a refusal's breaker (issue 32): the key or plan may have been fixed since, so the
		// source is asked once more, and the breaker stays closed when it answers
		started = time.Now()
		bars, err = reask(ctx, b, src, p.account, symbol, from, now, err)
		reasked = true
	}
	line.LatencyMS = time.Since(started).Milliseconds()
	if d, ok := src.(dated); ok {
		if date, ok := d.LastDate(); ok {
			p.date = &date
		}
	}
	switch {
	case errors.Is(err, sources.ErrNotSent):
		p.checks = []Check{notSent(line, s, err)}
		return p
	case err != nil:
		p.checks = []Check{refused(line, s, symbol, err)}
		return p
	}
	line.Verdict = OK
	asked := feed
	if symbol != feed {
		asked += " (" + symbol + ")"
	}
	line.Detail = fmt.Sprintf("key accepted, %s of %s since %s", plural(len(bars), "1-minute bar"), asked, from.Format("15:04 UTC"))
	if reasked {
		line.Detail += "; asked again despite its open breaker, which is closed now (the key or plan was fixed)"
	}
	p.checks = []Check{line, barAge(s.Name, feed, cov, bars, now)}
	return p
}

// accountOf is the budget account the built source spends from: its client's (the base URL
// defaulted, the key read), else the spec's settings'.
func accountOf(s feeds.SourceSpec, src sources.Source) string {
	if c, ok := src.(interface{ Client() *sources.Client }); ok {
		return c.Client().Account()
	}
	return sources.AccountOf(s.Name, s.Settings.BaseURL, s.Settings.Key, s.Settings.Secret)
}

// reask closes a refused source's breaker and asks it once more. A source that answers keeps
// it closed; one that is refused again opens it again itself (the client trips it); any other
// failure (unreachable) puts the old breaker back: nothing says the refusal is over.
// notSent is the error of the request the breaker stopped, returned when the breaker cannot be
// read.
func reask(ctx context.Context, b Budget, src sources.Source, account, symbol string, from, now time.Time, notSent error) ([]sources.Bar, error) {
	st, err := b.Standing(ctx, account, nil, now)
	if err != nil || st.Breaker == nil || st.Breaker.Kind != sources.KindUnauthorized {
		return nil, notSent
	}
	old := *st.Breaker
	if err := b.CloseBreaker(ctx, account); err != nil {
		return nil, err
	}
	bars, err := src.Bars(ctx, symbol, from, now)
	if err != nil && sources.KindOf(err) != sources.KindUnauthorized {
		if _, terr := b.Trip(ctx, account, old); terr != nil {
			return nil, errors.Join(err, terr)
		}
	}
	return bars, err
}

// feedOf is the first feed that names the source, and the source's symbol for it.
func feedOf(spec *feeds.Spec, source string) (feed, symbol string, ok bool) {
	for _, f := range spec.Feeds {
		if sym, ok := f.ProviderSymbol(source); ok {
			return f.Symbol, sym, true
		}
	}
	return "", "", false
}

// missingKey is the failure of a source whose key variables are unset, naming each.
func missingKey(line Check, s feeds.SourceSpec) Check {
	var vars, what []string
	if s.KeyEnv != "" && s.Key == "" {
		vars, what = append(vars, s.KeyEnv), append(what, s.KeyEnv+" with "+s.Name+"'s key")
	}
	if s.SecretEnv != "" && s.Secret == "" {
		vars, what = append(vars, s.SecretEnv), append(what, s.SecretEnv+" with its secret")
	}
	line.Verdict, line.Problem, line.ErrorKind = Fail, MissingKey, sources.KindNoKey
	verb := "is"
	if len(vars) > 1 {
		verb = "are"
	}
	line.Detail = fmt.Sprintf("%s %s not set: %s is skipped", strings.Join(vars, " and "), verb, s.Name)
	line.Fix = fmt.Sprintf("export %s (from the provider's account), or remove %s from sources.yaml", strings.Join(what, " and "), s.Name)
	return line
}

// refused turns a source's failed request into its line, by the error's kind and cause (never
// its text): a 401 is the key, a 402 or 403 or a provider's own "not entitled" the plan.
func refused(line Check, s feeds.SourceSpec, symbol string, err error) Check {
	line.Verdict, line.ErrorKind, line.Detail = Fail, sources.KindOf(err), err.Error()
	switch line.ErrorKind {
	case sources.KindUnauthorized:
		if errors.Is(err, sources.ErrNotEntitled) {
			line.Problem = PlanRefused
			line.Fix = fmt.Sprintf("the key is known but its plan does not include 1-minute bars: upgrade %s's plan, or remove %s from sources.yaml", s.Type, s.Name)
		} else {
			line.Problem = KeyRefused
			line.Fix = fmt.Sprintf("%s does not accept the key: set %s to a valid key from the provider's account", s.Type, keyVars(s))
		}
	case sources.KindNoKey:
		line.Problem, line.Fix = MissingKey, fmt.Sprintf("set %s", keyVars(s))
	case sources.KindRateLimited:
		line.Verdict, line.Problem = Warn, RateLimited
		line.Fix = fmt.Sprintf("the plan's request limit is used up for now: wait for it, or lower %s's rate: in sources.yaml to the plan's", s.Name)
	case sources.KindUnavailable:
		line.Problem = Unreachable
		line.Fix = fmt.Sprintf("check this machine's network, proxy and firewall to %s's base_url, and the provider's status", s.Type)
	case sources.KindUnknownSymbol:
		line.Problem = UnknownSymbol
		line.Fix = fmt.Sprintf("correct %s's symbol %q under feeds: in sources.yaml", s.Name, symbol)
	case sources.KindBadResponse, sources.KindBodyTooLarge, sources.KindRedirect:
		line.Problem = BadResponse
		line.Fix = fmt.Sprintf("check %s's base_url and type in sources.yaml: the answer is not the provider's 1-minute bars", s.Name)
	default:
		line.Problem = SourceFailed
		line.Fix = fmt.Sprintf("see the error; pricerig bars --source %s shows the raw answer", s.Name)
	}
	return line
}

// keyVars names a source's key variables, for a fix.
func keyVars(s feeds.SourceSpec) string {
	vars := []string{}
	for _, v := range []string{s.KeyEnv, s.SecretEnv} {
		if v != "" {
			vars = append(vars, v)
		}
	}
	if len(vars) == 0 {
		return "the key"
	}
	return strings.Join(vars, " and ")
}

// barAge judges the source's latest bar against its final_after: every minute that ended more
// than final_after (and the plan's delay) ago is final, and a final minute without a bar is read
// as a minute without trades. So in a regular session, where the feeds' symbols trade every
// minute, a latest bar older than final_after, delay and a little slack means the source
// publishes later than its final_after says. Outside the regular session it is not judged.
func barAge(name, feed string, cov sources.Coverage, bars []sources.Bar, now time.Time) Check {
	line := Check{Check: "bar_age", Subject: name, Verdict: OK}
	allowed := cov.Delay + cov.FinalAfter + lateSlack
	settings := fmt.Sprintf("final_after %s", cov.FinalAfter)
	if cov.Delay > 0 {
		settings += fmt.Sprintf(" and delay %s", cov.Delay)
	}
	var latest time.Time
	if n := len(bars); n > 0 {
		latest = bars[n-1].Start.Add(time.Minute)
	}
	judged := cov.Covers(market.Regular)
	for m := now.Add(-allowed - time.Minute).Truncate(time.Minute); judged && m.Before(now.Add(-cov.Delay-cov.FinalAfter)); m = m.Add(time.Minute) {
		judged = market.InSessions(m, []market.Session{market.Regular})
	}
	switch {
	case !judged:
		line.Detail = fmt.Sprintf("not judged: the minutes its %s makes final are outside the regular session", settings)
	case latest.IsZero() || now.Sub(latest) > allowed:
		age := "none in the window"
		if !latest.IsZero() {
			age = fmt.Sprintf("the latest ended %s ago", now.Sub(latest).Round(time.Second))
		}
		line.Verdict, line.Problem = Warn, BarsLate
		line.Detail = fmt.Sprintf("%s bars: %s, in a regular session where it trades every minute; %s: it publishes later than that, so a minute it has not published by then reads as one without trades", feed, age, settings)
		line.Fix = fmt.Sprintf("raise %s's final_after in sources.yaml to when the provider publishes (or set delay: to the plan's)", name)
	default:
		line.Detail = fmt.Sprintf("the latest %s bar ended %s ago, within %s", feed, now.Sub(latest).Round(time.Second), settings)
	}
	return line
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "sh") {
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
