package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/internal/human"
)

// Quotas and breakers: what a source may still send over hours, days or months, beyond the pace
// its Rate keeps, and whether it is asked at all after its provider refused it.
//
// A provider's free tier counts requests per day or month (Alpha Vantage 25 a day, Twelve Data
// 800, Tiingo 1,000, FMP 250; each adapter's README cites its own), and every process that uses
// the key spends from the same count. The client asks its Budget before each request it sends:
// the host's budget keeps the counts where every process on one store sees them
// (feeds/history), MemoryBudget where only this process does. A request that would pass the quota
// is not sent. A plan refusal (HTTP 401, 402, 403) or a Retry-After longer than the client
// would ever back off opens the source's breaker: the source is not asked until it closes, and
// the client that opened it says so once, in its log.

// ErrNotSent is the cause of an *Error for a request its budget stopped before it was sent: the
// source is over quota, or its breaker is open. A caller that waits out a refusal itself (the
// backfill, whose pacer sits in the transport the request never reached) tells it by this.
var ErrNotSent = errors.New("not sent")

// ErrOverQuota is the kind of a request that was not sent because it would pass the source's
// quota (sources.yaml's quota:, else its type's free-tier default); RetryAfter says when the
// quota has room again.
var ErrOverQuota = errors.New("over quota")

// Quota is a source's allowance of requests: at most N in any span of Per, for each of its
// limits. The counting is over rolling spans, which keeps inside a provider's count whatever
// instant its day or month resets at (providers rarely say): a month is 31 days. nil is no quota.
type Quota []Rate

// Quota periods, as sources.yaml writes them.
const (
	QuotaHour  = time.Hour
	QuotaDay   = 24 * time.Hour
	QuotaMonth = 31 * 24 * time.Hour
)

var quotaPeriods = map[string]time.Duration{
	"h": QuotaHour, "hour": QuotaHour, "d": QuotaDay, "day": QuotaDay, "month": QuotaMonth,
}

// NoQuota is sources.yaml's quota: none, which drops the type's default quota.
var NoQuota = Quota{}

// ParseQuota reads a quota as sources.yaml writes it: "25/day", "50/hour, 1000/day",
// "20000/month", or "none" (no quota, whatever the type's default).
func ParseQuota(text string) (Quota, error) {
	text = strings.TrimSpace(text)
	if text == "none" {
		return NoQuota, nil
	}
	var q Quota
	for part := range strings.SplitSeq(text, ",") {
		n, per, ok := strings.Cut(strings.TrimSpace(part), "/")
		if !ok {
			return nil, fmt.Errorf("quota %q: want COUNT/PERIOD (hour, day or month), like 25/day, or none", text)
		}
		count, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || count <= 0 {
			return nil, fmt.Errorf("quota %q: the count must be a positive integer", text)
		}
		d, ok := quotaPeriods[strings.TrimSpace(per)]
		if !ok {
			return nil, fmt.Errorf("quota %q: the period must be hour, day or month", text)
		}
		if slices.ContainsFunc(q, func(l Rate) bool { return l.Per == d }) {
			return nil, fmt.Errorf("quota %q: %s given twice", text, per)
		}
		q = append(q, Rate{N: count, Per: d})
	}
	slices.SortFunc(q, func(a, b Rate) int { return int(a.Per - b.Per) })
	return q, nil
}

// Or returns q, or def when q was not set (nil); NoQuota stays none.
func (q Quota) Or(def Quota) Quota {
	if q == nil {
		return def
	}
	return q
}

// With is q with the limits of more added; of two limits over one period the tighter stays. A
// source's quota is its quota: with its rate's Allowance.
func (q Quota) With(more Quota) Quota {
	if len(more) == 0 {
		return q
	}
	out := slices.Clone(q)
	for _, l := range more {
		i := slices.IndexFunc(out, func(have Rate) bool { return have.Per == l.Per })
		switch {
		case i < 0:
			out = append(out, l)
		case l.N < out[i].N:
			out[i] = l
		}
	}
	slices.SortFunc(out, func(a, b Rate) int { return int(a.Per - b.Per) })
	return out
}

func (q Quota) String() string {
	if len(q) == 0 {
		return "none"
	}
	parts := make([]string, len(q))
	for i, l := range q {
		parts[i] = limitText(l)
	}
	return strings.Join(parts, ", ")
}

func limitText(l Rate) string {
	switch l.Per {
	case QuotaHour:
		return fmt.Sprintf("%d/hour", l.N)
	case QuotaDay:
		return fmt.Sprintf("%d/day", l.N)
	case QuotaMonth:
		return fmt.Sprintf("%d/month", l.N)
	}
	return l.String()
}

// Use is one minute of a source's requests as a budget counts them: Count requests sent in the
// minute that starts at Minute.
type Use struct {
	Minute time.Time
	Count  int
}

// Span is how far back a budget must keep a source's counts for q: its longest period and the
// minute of the oldest count.
func (q Quota) Span() time.Duration {
	var d time.Duration
	for _, l := range q {
		d = max(d, l.Per)
	}
	return d + time.Minute
}

// KeepUses is how long a budget keeps a source's counts, whatever quota the process that counts
// reads: the longest span any quota has (a month, and the minute of the oldest count). A process
// with an hourly quota then never deletes the counts another's daily or monthly quota needs, and
// the counts of a source with no quota are there for a report of what was spent.
func (q Quota) KeepUses() time.Duration { return max(q.Span(), QuotaMonth+time.Minute) }

// Room checks one more request at now against q, given the source's counts (any order):
// ok, or the limit it would pass and when that limit has room again. A count of the minute
// that starts at m stands for requests at any instant of it, so it is counted by a span of Per
// ending now while any of that minute lies in it: counting stays on the safe side of the
// provider's window.
func (q Quota) Room(uses []Use, now time.Time) (ok bool, limit Rate, free time.Time) {
	sorted := slices.Clone(uses)
	slices.SortFunc(sorted, func(a, b Use) int { return a.Minute.Compare(b.Minute) })
	for _, l := range q {
		since := now.Add(-l.Per - time.Minute)
		i, _ := slices.BinarySearchFunc(sorted, since, func(u Use, t time.Time) int {
			if u.Minute.After(t) {
				return 1
			}
			return -1
		})
		in := sorted[i:]
		used := 0
		for _, u := range in {
			used += u.Count
		}
		if used < l.N {
			continue
		}
		// the oldest minutes leave the span first: there is room once enough of them have
		at := now
		for _, u := range in {
			used -= u.Count
			at = u.Minute.Add(time.Minute + l.Per)
			if used < l.N {
				break
			}
		}
		if at.After(free) {
			limit, free = l, at
		}
	}
	return free.IsZero(), limit, free
}

// Used counts the requests of uses that a limit's span ending now counts (see Room).
func Used(uses []Use, l Rate, now time.Time) int {
	since := now.Add(-l.Per - time.Minute)
	n := 0
	for _, u := range uses {
		if u.Minute.After(since) {
			n += u.Count
		}
	}
	return n
}

// OverQuota is the error of a request Room refused.
func OverQuota(source string, limit Rate, free, now time.Time) *Error {
	return &Error{Source: source, Kind: ErrOverQuota, RetryAfter: free.Sub(now), Err: ErrNotSent,
		Msg: fmt.Sprintf("its quota of %s is used up until %s", limitText(limit), free.UTC().Format(time.RFC3339))}
}

// Breaker is an open breaker of a source: it is not asked until Until, because its provider
// refused it (Kind unauthorized: a plan or key refusal) or asked for a pause longer than a retry
// waits (Kind rate_limited).
type Breaker struct {
	Opened, Until time.Time
	Kind          ErrorKind
	Why           string // the refusal, redacted
}

// Open reports whether the breaker is open at now.
func (b Breaker) Open(now time.Time) bool { return now.Before(b.Until) }

// Err is the error of a request the open breaker stopped: of the kind that opened it, so a
// quote tells a refused source from a failed one as it did when the refusal came.
func (b Breaker) Err(source string, now time.Time) *Error {
	kind := ErrUnauthorized
	if b.Kind == KindRateLimited {
		kind = ErrRateLimited
	}
	return &Error{Source: source, Kind: kind, RetryAfter: b.Until.Sub(now), Err: ErrNotSent,
		Msg: fmt.Sprintf("backing off until %s after %s", b.Until.UTC().Format(time.RFC3339), b.Why)}
}

// RefusalBackoff is how long a source whose provider refused a request (HTTP 401, 402 or 403: a
// free key asking for an endpoint of a paid plan, FMP's "Restricted Endpoint", Finnhub's "You
// don't have access to this resource.") is left unasked: long enough that a rig answering a
// task every few seconds does not ask it on every task, short enough that a key or plan fixed
// meanwhile is used again within the hour.
const RefusalBackoff = 30 * time.Minute

// Budget is what the client asks before each request it sends and tells when a provider refused
// one: the host implements it (feeds/history's store, shared by every process on it;
// MemoryBudget, this process alone).
type Budget interface {
	// Spend counts one request of source (the client's account, AccountOf: its name, origin and
	// key fingerprint) at now against quota (with no quota too: the count is what was sent), or
	// refuses it with an *Error:
	// of kind ErrOverQuota when it would pass the quota, of the kind that opened the source's
	// breaker while that is open (Breaker.Err); RetryAfter says until when.
	Spend(ctx context.Context, source string, quota Quota, now time.Time) error
	// Trip opens source's breaker (or keeps it open until the later of the two Untils) and
	// reports whether it was closed before: the caller that opened it says so.
	Trip(ctx context.Context, source string, b Breaker) (opened bool, err error)
}

// MemoryBudget is a Budget kept in this process: the quota of a source that no store counts
// (`pricerig price --no-cache`, tests) still holds for as long as the process runs.
type MemoryBudget struct {
	mu       sync.Mutex
	uses     map[string][]Use
	breakers map[string]Breaker
}

// NewMemoryBudget returns an empty MemoryBudget.
func NewMemoryBudget() *MemoryBudget {
	return &MemoryBudget{uses: map[string][]Use{}, breakers: map[string]Breaker{}}
}

// Spend implements Budget.
func (m *MemoryBudget) Spend(_ context.Context, source string, q Quota, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.breakers[source]; ok && b.Open(now) {
		return b.Err(source, now)
	}
	uses := m.uses[source]
	if ok, limit, free := q.Room(uses, now); !ok {
		return OverQuota(source, limit, free, now)
	}
	m.uses[source] = AddUse(uses, now, q.KeepUses())
	return nil
}

// AddUse counts one request at now in uses, dropping the minutes older than keep.
func AddUse(uses []Use, now time.Time, keep time.Duration) []Use {
	minute := now.Truncate(time.Minute)
	uses = slices.DeleteFunc(uses, func(u Use) bool { return u.Minute.Before(now.Add(-keep)) })
	for i := range uses {
		if uses[i].Minute.Equal(minute) {
			uses[i].Count++
			return uses
		}
	}
	return append(uses, Use{Minute: minute, Count: 1})
}

// Trip implements Budget.
func (m *MemoryBudget) Trip(_ context.Context, source string, b Breaker) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, had := m.breakers[source]
	if had && old.Until.After(b.Until) {
		b.Until = old.Until
	}
	m.breakers[source] = b
	return !had || !old.Open(b.Opened), nil
}

// CloseBreaker closes a source's breaker: it is asked again at once.
func (m *MemoryBudget) CloseBreaker(_ context.Context, source string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.breakers, source)
	return nil
}

// Uses lists the counts the budget holds of a source, for a report.
func (m *MemoryBudget) Uses(source string) []Use {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.uses[source])
}

// AccountOf is what a budget counts a source's requests and keeps its breaker by: the source's
// name, the origin it asks and a fingerprint of its key and secret (never the key). A request
// to a simulator (`--sim`) then spends nothing of the provider's quota and is stopped by none of
// its breakers, and a new key is asked at once, its count its own (issue 32: a key refused once
// kept its source's breaker open for 30 minutes after the key was fixed).
func AccountOf(name, baseURL, key, secret string) string {
	origin := baseURL
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		origin = Origin(u)
	}
	fp := "none"
	if key != "" || secret != "" {
		sum := sha256.Sum256([]byte("pricerig key fingerprint\x00" + key + "\x00" + secret))
		fp = hex.EncodeToString(sum[:6])
	}
	return name + " " + origin + " key:" + fp
}

// Account is the client's budget account (AccountOf).
func (c *Client) Account() string { return c.account }

// spend asks the client's budget for one request now.
func (c *Client) spend(ctx context.Context) error {
	err := c.budget.Spend(ctx, c.account, c.quota, c.deps.Now())
	var e *Error
	if errors.As(err, &e) {
		e.Source = c.name // the budget names the account
	}
	if err != nil && e == nil {
		// the budget could not be read (its store is down): not sending keeps inside the
		// quota, and the error says why
		return &Error{Source: c.name, Kind: ErrUnavailable, Msg: "the request budget could not be read", Err: errors.New(c.Redact(err.Error()))}
	}
	return err
}

// refused opens the source's breaker when a response says it should not be asked for a while:
// a plan or key refusal (401, 402, 403), or a pause (Retry-After) longer than the client backs
// off. The client that opened it logs it once.
func (c *Client) refused(ctx context.Context, resp *Response, wait time.Duration) {
	now := c.deps.Now()
	b := Breaker{Opened: now}
	switch {
	case refusalStatus(resp.Status):
		b.Until, b.Kind = now.Add(RefusalBackoff), KindUnauthorized
		b.Why = fmt.Sprintf("HTTP %d: %s", resp.Status, c.message(FirstLine(resp.Body)))
	case resp.Status == 429 && wait > maxBackoff:
		b.Until, b.Kind = now.Add(wait), KindRateLimited
		b.Why = fmt.Sprintf("HTTP 429, asked to retry after %s", human.Duration(wait))
	default:
		return
	}
	c.trip(ctx, b)
}

func refusalStatus(status int) bool { return status == 401 || status == 402 || status == 403 }

// refusedAs opens the source's breaker on a plan or key refusal its adapter read in the body,
// whatever the status: Alpha Vantage's premium message and Massive's NOT_AUTHORIZED come with
// HTTP 200, and every retry of such a request spends quota for the same answer. (A refusal by
// status opened it already, in refused.)
func (c *Client) refusedAs(ctx context.Context, err error) {
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Kind != ErrUnauthorized || refusalStatus(e.Status) {
		return
	}
	now := c.deps.Now()
	c.trip(ctx, Breaker{Opened: now, Until: now.Add(RefusalBackoff), Kind: KindUnauthorized,
		Why: fmt.Sprintf("HTTP %d: %s", e.Status, e.Msg)})
}

// trip opens the source's breaker; the client that opened it says so once, in its log.
func (c *Client) trip(ctx context.Context, b Breaker) {
	opened, err := c.budget.Trip(ctx, c.account, b)
	switch {
	case err != nil:
		c.deps.Logger.Warn("source breaker not kept", "source", c.name, "error", c.Redact(err.Error()))
	case opened:
		// Info: a rig's log shows it (once); `price` says it in the source's quote instead
		c.deps.Logger.Info("source refused: not asked again until its breaker closes", slog.String("source", c.name),
			slog.String("until", b.Until.UTC().Format(time.RFC3339)), slog.String("why", b.Why))
	}
}
