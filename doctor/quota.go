package doctor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/sources"
)

// The quota check: what each source may still send, read from the same accounting `price`, the
// audit and the rig spend from (the history store's quota_use and breakers, issue 26), so the
// doctor's own request is counted like theirs, and a source its budget stops (over its quota, or
// its breaker open after a plan refusal) is not asked by the doctor either.

// Problems of the quota check (and of a source's request its budget did not send).
const (
	OverQuota   = "over_quota"   // the source's quota is used up: it is not asked until it has room
	BreakerOpen = "breaker_open" // the provider refused it lately: it is not asked until the breaker closes
	QuotaLow    = "quota_low"    // less than a tenth of a limit is left
)

// Budget is the request accounting the doctor spends from and reads: a history store.
type Budget interface {
	sources.Budget
	Standing(ctx context.Context, source string, q sources.Quota, now time.Time) (history.Standing, error)
	// CloseBreaker closes a source's breaker: the doctor asks a refused source once more, and
	// a key or plan fixed since is used again at once by every process on the ledger.
	CloseBreaker(ctx context.Context, source string) error
}

// memoryBudget is the doctor's own count when no store is there: only this run's requests and
// the breakers its refusals opened.
type memoryBudget struct {
	*sources.MemoryBudget
	mu       sync.Mutex
	breakers map[string]sources.Breaker
}

func newMemoryBudget() *memoryBudget {
	return &memoryBudget{MemoryBudget: sources.NewMemoryBudget(), breakers: map[string]sources.Breaker{}}
}

// Trip implements sources.Budget, keeping the breaker for Standing.
func (m *memoryBudget) Trip(ctx context.Context, source string, b sources.Breaker) (bool, error) {
	opened, err := m.MemoryBudget.Trip(ctx, source, b)
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.breakers[source]; !ok || b.Until.After(old.Until) {
		m.breakers[source] = b
	}
	return opened, err
}

// CloseBreaker implements Budget.
func (m *memoryBudget) CloseBreaker(ctx context.Context, source string) error {
	m.mu.Lock()
	delete(m.breakers, source)
	m.mu.Unlock()
	return m.MemoryBudget.CloseBreaker(ctx, source)
}

func (m *memoryBudget) Standing(_ context.Context, source string, q sources.Quota, now time.Time) (history.Standing, error) {
	out := history.Standing{Source: source}
	m.mu.Lock()
	if b, ok := m.breakers[source]; ok && b.Open(now) {
		out.Breaker = &b
	}
	m.mu.Unlock()
	uses := m.Uses(source)
	for _, l := range q {
		used := sources.Used(uses, l, now)
		out.Limits = append(out.Limits, history.LimitStanding{Limit: l, Used: used, Left: max(l.N-used, 0)})
	}
	return out, nil
}

// openBudget opens the store at target as the sources' budget when it is there and current
// (nothing is made or migrated); else the doctor counts its requests in memory and says why.
func openBudget(ctx context.Context, target string) (b Budget, where string, closeFn func()) {
	memory := newMemoryBudget()
	if target == "" {
		return memory, "no ledger given: this run's requests only", func() {}
	}
	shown := dburl.Shown(target)
	in, err := history.Inspect(ctx, target)
	switch {
	case errors.Is(err, history.ErrNoStore):
		return memory, fmt.Sprintf("no ledger at %s yet: nothing spent but this run's request", shown), func() {}
	case err != nil:
		return memory, fmt.Sprintf("the ledger at %s cannot be read (this run's requests only): %v", shown, err), func() {}
	case in.Version != in.Newest:
		return memory, fmt.Sprintf("the ledger at %s is schema version %d, not %d (this run's requests only)", shown, in.Version, in.Newest), func() {}
	}
	st, err := history.OpenExisting(target)
	if err != nil {
		return memory, fmt.Sprintf("the ledger at %s cannot be opened (this run's requests only): %v", shown, err), func() {}
	}
	return st, "the ledger at " + shown, func() { st.Close() }
}

// notSent is the line of a source whose request its budget stopped: over its quota (a warning:
// it has room again later) or its breaker open (a failure when the provider refused the key or
// plan, a warning when it only asked for a long pause).
func notSent(line Check, s feeds.SourceSpec, err error) Check {
	var e *sources.Error
	errors.As(err, &e)
	line.ErrorKind, line.Detail = sources.KindOf(err), "not asked: "+err.Error()
	until := ""
	if e != nil && e.RetryAfter > 0 {
		until = fmt.Sprintf(" in %s", e.RetryAfter.Round(time.Minute))
	}
	switch {
	case errors.Is(err, sources.ErrOverQuota):
		line.Verdict, line.Problem = Warn, OverQuota
		line.Fix = fmt.Sprintf("it is asked again when its quota has room%s; for more, a paid plan and %s's quota: in sources.yaml to it", until, s.Name)
	case line.ErrorKind == sources.KindUnauthorized:
		line.Verdict, line.Problem = Fail, BreakerOpen
		line.Fix = fmt.Sprintf("fix %s's key or plan (the refusal above), then run pricerig doctor again with the ledger: it asks %s once more and closes the breaker when it answers (else it is asked again when the breaker closes%s)", s.Name, s.Name, until)
	default:
		line.Verdict, line.Problem = Warn, BreakerOpen
		line.Fix = fmt.Sprintf("the provider asked for a pause: it is asked again when the breaker closes%s", until)
	}
	return line
}

// checkQuota reads one source's standing after its probe: each limit's requests left (a
// warning under a tenth), its breaker when open: a failure when an earlier refusal opened it (the
// rig's, or an earlier doctor's), a warning when this run's probe did, whose source line is the
// failure already.
func checkQuota(ctx context.Context, b Budget, where string, s feeds.SourceSpec, p probe, now time.Time) Check {
	line := Check{Check: "quota", Subject: s.Name, Verdict: OK}
	q := s.Settings.Quota.With(s.Settings.Rate.Allowance()) // an hourly or daily rate is counted as a quota
	account := p.account
	if account == "" {
		account = accountOf(s, nil)
	}
	st, err := b.Standing(ctx, account, q, now)
	if err != nil {
		line.Verdict, line.Problem = Warn, SourceFailed
		line.Detail = fmt.Sprintf("%s: %v", where, err)
		line.Fix = "check the ledger with pricerig doctor --db (the store check)"
		return line
	}
	if st.Breaker != nil {
		b := st.Breaker
		line.Detail = fmt.Sprintf("breaker open since %s until %s: %s", b.Opened.UTC().Format(time.RFC3339), b.Until.UTC().Format(time.RFC3339), b.Why)
		line.Problem = BreakerOpen
		if line.Verdict = Warn; b.Kind == sources.KindUnauthorized {
			if line.Verdict = Fail; p.refused() {
				line.Verdict = Warn
				line.Detail = "opened by the refusal above: " + line.Detail
			}
			line.Fix = fmt.Sprintf("fix %s's key or plan, then run pricerig doctor again: it asks %s once more and closes the breaker when it answers (else it is asked again from %s)", s.Name, s.Name, b.Until.UTC().Format("15:04 UTC"))
		} else {
			line.Fix = fmt.Sprintf("the provider asked for a pause; %s is asked again from %s", s.Name, b.Until.UTC().Format("15:04 UTC"))
		}
		return line
	}
	if len(q) == 0 {
		// every request sent is counted, quota or not: say what the last day spent
		day := sources.Quota{{N: math.MaxInt32, Per: sources.QuotaDay}}
		if st, err := b.Standing(ctx, account, day, now); err == nil && len(st.Limits) == 1 {
			line.Detail = fmt.Sprintf("no quota; %s sent in the last 24 h (%s)", plural(st.Limits[0].Used, "request"), where)
			return line
		}
		line.Detail = "no quota (" + where + ")"
		return line
	}
	var parts []string
	for _, l := range st.Limits {
		parts = append(parts, fmt.Sprintf("%d of %s left", l.Left, limitText(l.Limit)))
		switch {
		case l.Left == 0:
			line.Verdict, line.Problem = Warn, OverQuota
			line.Fix = fmt.Sprintf("%s is not asked until its quota has room; for more, a paid plan and its quota: in sources.yaml", s.Name)
		case l.Left*10 < l.Limit.N && line.Problem == "":
			line.Verdict, line.Problem = Warn, QuotaLow
			line.Fix = fmt.Sprintf("%s will be over its quota soon: fewer tasks, or a paid plan and its quota: in sources.yaml", s.Name)
		}
	}
	line.Detail = fmt.Sprintf("%s (%s)", strings.Join(parts, ", "), where)
	return line
}

// refused says whether this run's request was sent and refused (so the breaker is its own).
func (p probe) refused() bool {
	return len(p.checks) > 0 && p.checks[0].Check == "source" && p.checks[0].Verdict != OK &&
		p.checks[0].Problem != BreakerOpen && p.checks[0].Problem != OverQuota
}

// limitText writes a limit as sources.yaml's quota: does.
func limitText(l sources.Rate) string { return sources.Quota{l}.String() }
