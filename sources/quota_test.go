package sources

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseQuota(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      string
	}{
		{"25/day", "25/day", ""},
		{" 1000/day, 50/hour ", "50/hour, 1000/day", ""},
		{"20000/month", "20000/month", ""},
		{"none", "none", ""},
		{"25", "", "want COUNT/PERIOD"},
		{"0/day", "", "positive integer"},
		{"25/week", "", "hour, day or month"},
		{"25/min", "", "hour, day or month"},
		{"5/day, 6/day", "", "given twice"},
	} {
		q, err := ParseQuota(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseQuota(%q) = %v, %v; want an error saying %q", tc.in, q, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseQuota(%q): %v", tc.in, err)
		case q.String() != tc.want:
			t.Errorf("ParseQuota(%q) = %s, want %s", tc.in, q, tc.want)
		}
	}
	if q, _ := ParseQuota("none"); q == nil || q.Or(Quota{{N: 1, Per: QuotaDay}}).String() != "none" {
		t.Error("quota: none does not drop the type's default")
	}
	if q := Quota(nil).Or(Quota{{N: 25, Per: QuotaDay}}); q.String() != "25/day" {
		t.Errorf("an unset quota takes the default: %s", q)
	}
}

// Room counts a rolling span: the requests of the last day, whatever instant a provider's day
// begins at, and says when the oldest of them leaves it.
func TestQuotaRoomIsARollingSpan(t *testing.T) {
	q := Quota{{N: 3, Per: QuotaDay}}
	t0 := time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC)
	var uses []Use
	for i := range 3 {
		uses = AddUse(uses, t0.Add(time.Duration(i)*time.Minute), q.Span())
	}
	// midnight UTC resets nothing: the three are still within the day before
	ok, limit, free := q.Room(uses, t0.Add(2*time.Hour))
	if ok || limit.N != 3 {
		t.Fatalf("a fourth request two hours later has room (%v %v)", ok, limit)
	}
	// the first minute's request leaves the span a day after that minute ends
	if want := t0.Add(time.Minute + QuotaDay); !free.Equal(want) {
		t.Errorf("room again at %s, want %s", free, want)
	}
	if ok, _, _ := q.Room(uses, free); !ok {
		t.Errorf("no room at %s, when the oldest request left the span", free)
	}
	if ok, _, _ := q.Room(uses, free.Add(-time.Second)); ok {
		t.Error("room a second before the oldest request left the span")
	}
	// two limits: the one with the later room decides
	q2 := Quota{{N: 2, Per: QuotaHour}, {N: 3, Per: QuotaDay}}
	if ok, limit, _ := q2.Room(uses, t0.Add(3*time.Minute)); ok || limit.Per != QuotaDay {
		t.Errorf("with both limits passed, the day's decides: %v %v", ok, limit)
	}
	if ok, _, _ := (Quota(nil)).Room(uses, t0); !ok {
		t.Error("no quota has no room")
	}
}

// A client sends at most its quota: the requests past it are refused before they go, with the
// kind over_quota, and the counts are its budget's, shared by every client given it.
func TestAClientKeepsInsideItsQuota(t *testing.T) {
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	budget := NewMemoryBudget()
	now := testNow
	mk := func() *Client {
		c := NewClient(Settings{Name: "av", BaseURL: ts.URL, Quota: Quota{{N: 5, Per: QuotaDay}}},
			Deps{Now: func() time.Time { return now }, Budget: budget}, ClientOptions{})
		c.Sleep = (&fakeSleeper{}).Sleep
		return c
	}
	a, b := mk(), mk() // two processes' clients on one budget
	var refused []error
	for i := range 8 {
		c := a
		if i%2 == 1 {
			c = b
		}
		if _, err := c.Get(context.Background(), "/q", map[string][]string{"i": {string(rune('a' + i))}}); err != nil {
			refused = append(refused, err)
		}
		now = now.Add(time.Minute)
	}
	if srv.hits != 5 {
		t.Errorf("the provider was asked %d times, its quota is 5 a day", srv.hits)
	}
	if len(refused) != 3 {
		t.Fatalf("%d requests refused, want 3", len(refused))
	}
	for _, err := range refused {
		var e *Error
		if !errors.As(err, &e) || KindOf(err) != KindOverQuota || e.RetryAfter <= 0 || !errors.Is(err, ErrNotSent) {
			t.Errorf("refused with %v (kind %s), want over_quota with a time to retry", err, KindOf(err))
		}
	}
	// a day after the first request, there is room again
	now = testNow.Add(QuotaDay + time.Minute)
	if _, err := a.Get(context.Background(), "/q", map[string][]string{"i": {"z"}}); err != nil {
		t.Errorf("a day later: %v", err)
	}
}

// A plan refusal opens the source's breaker: the source is not asked again until it closes, and
// the client says so once.
func TestAPlanRefusalOpensTheBreakerOnce(t *testing.T) {
	srv := &scripted{steps: []step{{status: 402, body: "Restricted Endpoint: This endpoint is not available under your current subscription"}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var logs bytes.Buffer
	var mu sync.Mutex
	now := testNow
	c := NewClient(Settings{Name: "fmp", BaseURL: ts.URL},
		Deps{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, ClientOptions{})
	c.Sleep = (&fakeSleeper{}).Sleep
	resp, err := c.Get(context.Background(), "/chart", nil)
	if err != nil || resp.Status != 402 {
		t.Fatalf("first request: %v %v", resp, err)
	}
	for range 5 {
		_, err = c.Get(context.Background(), "/chart", map[string][]string{"x": {"1"}})
		if KindOf(err) != KindUnauthorized || !errors.Is(err, ErrNotSent) || !strings.Contains(err.Error(), "backing off until") {
			t.Fatalf("while the breaker is open: %v (kind %s)", err, KindOf(err))
		}
	}
	if srv.hits != 1 {
		t.Errorf("the refusing provider was asked %d times", srv.hits)
	}
	if n := strings.Count(logs.String(), "source refused"); n != 1 {
		t.Errorf("the refusal was logged %d times, want once:\n%s", n, logs.String())
	}
	mu.Lock()
	now = now.Add(RefusalBackoff)
	mu.Unlock()
	if _, err := c.Get(context.Background(), "/chart", map[string][]string{"x": {"2"}}); err != nil {
		t.Errorf("once the breaker closed: %v", err)
	}
	if srv.hits != 2 {
		t.Errorf("after the backoff the provider was asked %d times in all, want 2", srv.hits)
	}
}

// A Retry-After longer than the client backs off opens the breaker until then.
func TestALongRetryAfterOpensTheBreaker(t *testing.T) {
	srv := &scripted{steps: []step{{status: 429, header: map[string]string{"Retry-After": "3600"}}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{Name: "td"}, ClientOptions{})
	if _, err := c.Get(context.Background(), "/a", nil); KindOf(err) != KindRateLimited {
		t.Fatalf("first: %v", err)
	}
	_, err := c.Get(context.Background(), "/b", nil)
	var e *Error
	if !errors.As(err, &e) || KindOf(err) != KindRateLimited || e.RetryAfter != time.Hour {
		t.Fatalf("second: %v, want rate_limited for an hour without asking", err)
	}
	if srv.hits != 1 {
		t.Errorf("asked %d times", srv.hits)
	}
}

// A plan refusal the adapter reads in a 200 body (Alpha Vantage's premium message, Massive's
// NOT_AUTHORIZED) opens the breaker as a 402 does: the source is not asked again, so no retry
// spends quota for the same answer (issue 32: they never opened it).
func TestARefusalInA200BodyOpensTheBreaker(t *testing.T) {
	srv := &scripted{steps: []step{{status: 200, body: `{"Information":"This is a premium endpoint."}`}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{Name: "alphavantage"}, ClientOptions{})
	decode := func(s *Stream) (int, error) {
		return 0, &Error{Kind: ErrUnauthorized, Err: ErrNotEntitled, Msg: "This is a premium endpoint."}
	}
	_, err := Fetch(context.Background(), c, Request{Path: "/query"}, decode)
	if KindOf(err) != KindUnauthorized || errors.Is(err, ErrNotSent) {
		t.Fatalf("the refusal: %v (kind %s), want unauthorized, sent", err, KindOf(err))
	}
	_, err = Fetch(context.Background(), c, Request{Path: "/query", Query: map[string][]string{"month": {"2026-11"}}}, decode)
	if KindOf(err) != KindUnauthorized || !errors.Is(err, ErrNotSent) || !strings.Contains(err.Error(), "premium endpoint") {
		t.Fatalf("the next request: %v (kind %s), want not sent while the breaker is open, saying why", err, KindOf(err))
	}
	if srv.Hits() != 1 {
		t.Errorf("the refusing provider was asked %d times, want 1", srv.Hits())
	}
}

// A breaker and a quota belong to the key and the origin that spent them: a key refused once
// does not stop a new key (issue 32: the breaker stayed open 30 minutes after the key was
// fixed), and a simulator's requests (`--sim`) spend nothing of the provider's quota. The same
// key at the same origin, in another process on the budget, is stopped.
func TestBudgetsBelongToTheKeyAndTheOrigin(t *testing.T) {
	srv := &scripted{steps: []step{{status: 401, body: `{"error":"invalid key"}`}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	other := httptest.NewServer(&scripted{})
	defer other.Close()
	budget := NewMemoryBudget()
	mk := func(base, key string) *Client {
		c := NewClient(Settings{Name: "massive", BaseURL: base, Key: key, Quota: Quota{{N: 1, Per: QuotaDay}}},
			Deps{Now: func() time.Time { return testNow }, Budget: budget}, ClientOptions{})
		c.Sleep = (&fakeSleeper{}).Sleep
		return c
	}
	if resp, err := mk(ts.URL, "old-key").Get(context.Background(), "/a", nil); err != nil || resp.Status != 401 {
		t.Fatalf("the refused key: %v %v", resp, err)
	}
	if _, err := mk(ts.URL, "old-key").Get(context.Background(), "/b", nil); !errors.Is(err, ErrNotSent) {
		t.Errorf("the same key again: %v, want not sent (its breaker is open)", err)
	}
	if resp, err := mk(ts.URL, "new-key").Get(context.Background(), "/c", nil); err != nil || resp.Status != 200 {
		t.Errorf("a new key: %v %v, want asked at once", resp, err)
	}
	if resp, err := mk(other.URL, "new-key").Get(context.Background(), "/d", nil); err != nil || resp.Status != 200 {
		t.Errorf("the new key at another origin: %v %v, want its own quota of 1/day", resp, err)
	}
	if _, err := mk(ts.URL, "new-key").Get(context.Background(), "/e", nil); KindOf(err) != KindOverQuota {
		t.Errorf("the new key's second request of the day at its origin: %v, want over_quota", err)
	}
	a, b := mk(ts.URL, "k").Account(), mk(ts.URL, "k").Account()
	if a != b {
		t.Errorf("one key at one origin, two accounts: %q, %q", a, b)
	}
	if strings.Contains(mk(ts.URL, "sekrit-key-value").Account(), "sekrit") {
		t.Error("the account names the key")
	}
}
