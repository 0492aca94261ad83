package sources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSleeper records the pauses a client asks for instead of waiting them out.
type fakeSleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleeper) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.waits = append(f.waits, d)
	f.mu.Unlock()
	return ctx.Err()
}

func (f *fakeSleeper) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

var testNow = time.Date(2026, 9, 1, 14, 0, 0, 0, time.UTC)

func newTestClient(base string, s Settings, o ClientOptions) (*Client, *fakeSleeper) {
	if s.Name == "" {
		s.Name = "test"
	}
	s.BaseURL = base
	c := NewClient(s, Deps{Now: func() time.Time { return testNow }}, o)
	f := &fakeSleeper{}
	c.Sleep = f.Sleep
	return c, f
}

// scripted answers each request with the next status (and headers) of a script, then 200.
type scripted struct {
	mu     sync.Mutex
	steps  []step
	hits   int
	header []http.Header
	paths  []string
}

type step struct {
	status int
	header map[string]string
	body   string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	i := s.hits
	s.hits++
	s.header = append(s.header, r.Header.Clone())
	s.paths = append(s.paths, r.URL.RequestURI())
	s.mu.Unlock()
	st := step{status: 200, body: `{"ok":true}`}
	if i < len(s.steps) {
		st = s.steps[i]
	}
	for k, v := range st.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(st.status)
	_, _ = io.WriteString(w, st.body)
}

func (s *scripted) Hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

func TestClientUserAgent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		browser bool
		want    string
	}{
		{"own", false, "pricerig/"},
		{"browser", true, "Mozilla/5.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &scripted{}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			c, _ := newTestClient(ts.URL, Settings{}, ClientOptions{BrowserUA: tc.browser})
			if _, err := c.Get(context.Background(), "/x", nil); err != nil {
				t.Fatal(err)
			}
			if got := srv.header[0].Get("User-Agent"); !strings.HasPrefix(got, tc.want) {
				t.Errorf("User-Agent %q, want prefix %q", got, tc.want)
			}
		})
	}
}

func TestClientJoinsPathAndQuery(t *testing.T) {
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := newTestClient(ts.URL+"/prefix/", Settings{}, ClientOptions{Header: map[string]string{"X-Extra": "1"}})
	q := url.Values{"b": {"2"}, "a": {"1 2"}}
	resp, err := c.Get(context.Background(), "v2/bars", q)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/prefix/v2/bars?a=1+2&b=2"; srv.paths[0] != want {
		t.Errorf("request %q, want %q", srv.paths[0], want)
	}
	if srv.header[0].Get("X-Extra") != "1" {
		t.Errorf("header not sent: %v", srv.header[0])
	}
	// An absolute next-page link is fetched as given, with the query appended after its own.
	if _, err := c.Get(context.Background(), ts.URL+"/next?cursor=abc", url.Values{"k": {"v"}}); err != nil {
		t.Fatal(err)
	}
	if want := "/next?cursor=abc&k=v"; srv.paths[1] != want {
		t.Errorf("request %q, want %q", srv.paths[1], want)
	}
	if resp.Status != 200 || string(resp.Body) != `{"ok":true}` {
		t.Errorf("response %d %q", resp.Status, resp.Body)
	}
}

func TestClientRetries(t *testing.T) {
	in := func(d time.Duration) map[string]string {
		return map[string]string{"Retry-After": fmt.Sprint(int(d.Seconds()))}
	}
	cases := []struct {
		name      string
		retries   int
		steps     []step
		wantHits  int
		wantKind  error // nil: a response comes back
		wantState int   // status of the response or the error
		minWaits  []time.Duration
		wantRA    time.Duration
	}{
		{name: "5xx then ok", retries: 2, steps: []step{{status: 503}, {status: 502}}, wantHits: 3, wantState: 200,
			minWaits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{name: "default retries are 2", retries: 0, steps: []step{{status: 500}, {status: 500}, {status: 500}}, wantHits: 3,
			wantKind: ErrUnavailable, wantState: 500, minWaits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{name: "negative turns retries off", retries: -1, steps: []step{{status: 500}}, wantHits: 1, wantKind: ErrUnavailable, wantState: 500},
		{name: "429 honours Retry-After", retries: 1, steps: []step{{status: 429, header: in(7 * time.Second)}}, wantHits: 2,
			wantState: 200, minWaits: []time.Duration{7 * time.Second}},
		{name: "429 honours X-RateLimit-Reset instant", retries: 1,
			steps:    []step{{status: 429, header: map[string]string{"X-RateLimit-Reset": fmt.Sprint(testNow.Unix() + 12)}}},
			wantHits: 2, wantState: 200, minWaits: []time.Duration{12 * time.Second}},
		{name: "429 out of retries", retries: 1, steps: []step{{status: 429, header: in(3 * time.Second)}, {status: 429, header: in(4 * time.Second), body: "Edge: Too Many Requests"}},
			wantHits: 2, wantKind: ErrRateLimited, wantState: 429, minWaits: []time.Duration{3 * time.Second}, wantRA: 4 * time.Second},
		{name: "429 asking longer than any backoff is not retried", retries: 3, steps: []step{{status: 429, header: in(2 * time.Minute)}},
			wantHits: 1, wantKind: ErrRateLimited, wantState: 429, wantRA: 2 * time.Minute},
		{name: "400 not retried", retries: 3, steps: []step{{status: 400, body: `{"message":"bad"}`}}, wantHits: 1, wantState: 400},
		{name: "401 not retried", retries: 3, steps: []step{{status: 401}}, wantHits: 1, wantState: 401},
		{name: "403 not retried", retries: 3, steps: []step{{status: 403}}, wantHits: 1, wantState: 403},
		{name: "404 not retried", retries: 3, steps: []step{{status: 404}}, wantHits: 1, wantState: 404},
		{name: "422 not retried", retries: 3, steps: []step{{status: 422}}, wantHits: 1, wantState: 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := &scripted{steps: tc.steps}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			c, sl := newTestClient(ts.URL, Settings{Retries: tc.retries}, ClientOptions{})
			resp, err := c.Get(context.Background(), "/x", nil)
			if srv.Hits() != tc.wantHits {
				t.Errorf("%d requests, want %d", srv.Hits(), tc.wantHits)
			}
			if tc.wantKind == nil {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if resp.Status != tc.wantState {
					t.Errorf("status %d, want %d", resp.Status, tc.wantState)
				}
			} else {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, tc.wantKind) {
					t.Fatalf("error %v, want kind %v", err, tc.wantKind)
				}
				if e.Status != tc.wantState || e.RetryAfter != tc.wantRA {
					t.Errorf("status %d retry-after %s, want %d %s", e.Status, e.RetryAfter, tc.wantState, tc.wantRA)
				}
			}
			waits := sl.Waits()
			if len(waits) != len(tc.minWaits) {
				t.Fatalf("waits %v, want %d of them", waits, len(tc.minWaits))
			}
			for i, w := range waits {
				// exponential with full jitter: at least the base (or what the provider asked),
				// below twice the base unless the provider asked for more
				lo, hi := tc.minWaits[i], 2*tc.minWaits[i]
				if w < lo || w >= hi && w != lo {
					t.Errorf("wait %d is %s, want in [%s, %s)", i, w, lo, hi)
				}
			}
		})
	}
}

func TestClientBackoffBounds(t *testing.T) {
	c, _ := newTestClient("http://127.0.0.1:1", Settings{}, ClientOptions{})
	for attempt := 0; attempt < 12; attempt++ {
		base := min(250*time.Millisecond<<min(attempt, 7), maxBackoff)
		for range 50 {
			d := c.backoff(attempt, 0)
			if d < base || d > maxBackoff || d >= 2*base {
				t.Fatalf("attempt %d: backoff %s outside [%s, min(2×base, %s)]", attempt, d, base, maxBackoff)
			}
		}
		if d := c.backoff(attempt, 29*time.Second); d < 29*time.Second {
			t.Errorf("attempt %d: backoff %s shorter than the 29s asked", attempt, d)
		}
	}
}

func TestClientTimeoutIsRetriedThenUnavailable(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(release)
	c, sl := newTestClient(ts.URL, Settings{Timeout: 50 * time.Millisecond, Retries: 1}, ClientOptions{})
	_, err := c.Get(context.Background(), "/slow", nil)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrUnavailable) || e.Msg != "timed out" {
		t.Fatalf("error %v, want unavailable: timed out", err)
	}
	if hits.Load() != 2 || len(sl.Waits()) != 1 {
		t.Errorf("%d requests and %d waits, want 2 and 1", hits.Load(), len(sl.Waits()))
	}
}

func TestClientConnectionRefused(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	base := ts.URL
	ts.Close()
	c, sl := newTestClient(base, Settings{Retries: 2}, ClientOptions{})
	_, err := c.Get(context.Background(), "/x", nil)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("error %v, want unavailable", err)
	}
	if len(sl.Waits()) != 2 {
		t.Errorf("waits %v, want 2", sl.Waits())
	}
}

func TestClientCancelledWhileBackingOff(t *testing.T) {
	srv := &scripted{steps: []step{{status: 503}, {status: 503}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{Retries: 5}, ClientOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	c.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	_, err := c.Get(ctx, "/x", nil)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrUnavailable) || e.Msg != "cancelled" {
		t.Fatalf("error %v, want unavailable: cancelled", err)
	}
	if srv.Hits() != 1 {
		t.Errorf("%d requests after cancel, want 1", srv.Hits())
	}
}

func TestClientRateLimiterPaces(t *testing.T) {
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, sl := newTestClient(ts.URL, Settings{Rate: Rate{N: 2, Per: time.Second}}, ClientOptions{})
	for i := range 3 {
		if _, err := c.Get(context.Background(), fmt.Sprintf("/x%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	waits := sl.Waits()
	// a burst of one: the first request goes at once, the next two wait their turn of 500ms
	// each (the fake sleep does not move the clock, so the third waits for two turns)
	if len(waits) != 2 {
		t.Fatalf("waits %v, want 2", waits)
	}
	if waits[0] <= 0 || waits[0] > 500*time.Millisecond {
		t.Errorf("second request waited %s, want (0, 500ms]", waits[0])
	}
	if waits[1] <= 500*time.Millisecond || waits[1] > time.Second {
		t.Errorf("third request waited %s, want (500ms, 1s]", waits[1])
	}
}

// A request whose turn at the source's rate comes only after the caller's deadline is not sent,
// and says so: kind paced (errors.Is ErrPaced), still ErrUnavailable for a caller that waits
// and retries, naming the rate and when its next request is free; never a bare timeout.
func TestClientPacedRequestIsNotSentAndSaysWhy(t *testing.T) {
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{Rate: Rate{N: 5, Per: time.Minute}}, ClientOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Get(ctx, "/first", nil); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get(ctx, "/second", nil)
	if !errors.Is(err, ErrPaced) || !errors.Is(err, ErrUnavailable) || KindOf(err) != KindPaced {
		t.Fatalf("the second request within the minute: %v (kind %q), want kind %q", err, KindOf(err), KindPaced)
	}
	var e *Error
	if !errors.As(err, &e) || e.RetryAfter <= 0 || e.RetryAfter > time.Minute/5 || !strings.Contains(err.Error(), "one request every 12s") {
		t.Errorf("%v: want the rate named and its next free request within one interval", err)
	}
	if srv.Hits() != 1 {
		t.Errorf("%d requests reached the server, want 1: a paced request is not sent", srv.Hits())
	}
}

// A daily rate is an allowance spent as needed, not an even pace (issue 32): fmp's 250/day let
// a rig pricing three symbols at once ask for the first only, the two others were paced for
// 5m45s. All three go at once now, and the allowance still holds: at 3/day, the fourth request
// of the day is not sent (over quota, until the first's day has passed).
func TestClientSpendsADailyRateAsAnAllowance(t *testing.T) {
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, tc := range []struct {
		rate  Rate
		quota Quota
	}{{Rate{N: 3, Per: 24 * time.Hour}, nil}, {Rate{N: 3, Per: 24 * time.Hour}, NoQuota}, {Rate{N: 250, Per: 24 * time.Hour}, Quota{{N: 3, Per: QuotaDay}}}} {
		srv.mu.Lock()
		srv.hits = 0
		srv.mu.Unlock()
		c, sl := newTestClient(ts.URL, Settings{Rate: tc.rate, Quota: tc.quota}, ClientOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i := range 3 {
			wg.Go(func() { _, errs[i] = c.Get(ctx, fmt.Sprintf("/sym%d", i), nil) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("rate %s, quota %s: symbol %d of 3 at once: %v", tc.rate, tc.quota, i, err)
			}
		}
		if w := sl.Waits(); len(w) != 0 {
			t.Errorf("rate %s: waited %v, want no pause", tc.rate, w)
		}
		_, err := c.Get(ctx, "/fourth", nil)
		cancel()
		if KindOf(err) != KindOverQuota || !errors.Is(err, ErrNotSent) {
			t.Errorf("rate %s, quota %s: a fourth request of the day: %v (kind %q), want over_quota", tc.rate, tc.quota, err, KindOf(err))
		}
		if srv.Hits() != 3 {
			t.Errorf("rate %s, quota %s: %d requests reached the server, want 3", tc.rate, tc.quota, srv.Hits())
		}
	}
}

func TestClientCoalescesIdenticalRequests(t *testing.T) {
	const callers = 8
	release := make(chan struct{})
	arrived := make(chan struct{}, callers)
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		arrived <- struct{}{}
		<-release
		fmt.Fprintf(w, `{"n":%d}`, n)
	}))
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{}, ClientOptions{})
	bodies := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(context.Background(), "/same", url.Values{"q": {"1"}})
			if err != nil {
				t.Error(err)
				return
			}
			bodies[i] = string(resp.Body)
		}()
	}
	<-arrived
	for c.callers.Load() < callers {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	// Every caller queued while the first request was in flight, so only that one reached the
	// server and all share its body.
	if hits.Load() != 1 {
		t.Errorf("%d requests reached the server, want 1", hits.Load())
	}
	for i, b := range bodies {
		if b != `{"n":1}` {
			t.Errorf("caller %d got %q", i, b)
		}
	}
	// A different query is a different request.
	if _, err := c.Get(context.Background(), "/same", url.Values{"q": {"2"}}); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests, want 2", hits.Load())
	}
}

func TestClientStatusErrorKinds(t *testing.T) {
	c, _ := newTestClient("http://127.0.0.1:1", Settings{}, ClientOptions{})
	for _, tc := range []struct {
		status int
		kind   error
	}{
		{400, ErrBadResponse}, {401, ErrUnauthorized}, {402, ErrUnauthorized}, {403, ErrUnauthorized},
		{404, ErrBadResponse}, {422, ErrBadResponse}, {429, ErrRateLimited}, {500, ErrUnavailable}, {503, ErrUnavailable},
	} {
		h := http.Header{"Retry-After": {"9"}}
		e := c.StatusError(&Response{Status: tc.status, Header: h}, "why")
		if !errors.Is(e, tc.kind) || e.Status != tc.status || e.Msg != "why" {
			t.Errorf("%d: %v, want kind %v", tc.status, e, tc.kind)
		}
		if wantRA := map[bool]time.Duration{true: 9 * time.Second}[tc.status == 429]; e.RetryAfter != wantRA {
			t.Errorf("%d: retry after %s, want %s", tc.status, e.RetryAfter, wantRA)
		}
	}
	if e := c.Fail(ErrNoData, 200, "x"); !errors.Is(e, ErrNoData) || e.Source != "test" {
		t.Errorf("Fail: %v", e)
	}
}

func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    map[string]string
		want time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "30"}, 30 * time.Second},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"http date", map[string]string{"Retry-After": testNow.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"past date", map[string]string{"Retry-After": testNow.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"reset instant", map[string]string{"X-RateLimit-Reset": fmt.Sprint(testNow.Unix() + 42)}, 42 * time.Second},
		{"reset instant passed", map[string]string{"X-RateLimit-Reset": fmt.Sprint(testNow.Unix() - 5)}, 0},
		{"reset count", map[string]string{"X-RateLimit-Reset": "15"}, 15 * time.Second},
		{"retry-after wins", map[string]string{"Retry-After": "3", "X-RateLimit-Reset": "15"}, 3 * time.Second},
		{"none", nil, 0},
	} {
		h := http.Header{}
		for k, v := range tc.h {
			h.Set(k, v)
		}
		if got := RetryAfter(h, testNow); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://x/y?apiKey=abc123&limit=5", "https://x/y?apiKey=REDACTED&limit=5"},
		{"https://x/y?a=1&apikey=abc", "https://x/y?a=1&apikey=REDACTED"},
		{"https://x/y?token=t0k&b=2", "https://x/y?token=REDACTED&b=2"},
		{"https://x/y?api_key=k", "https://x/y?api_key=REDACTED"},
		{`Get "https://x/y?APIKEY=zz": dial tcp`, `Get "https://x/y?APIKEY=REDACTED": dial tcp`},
		{"https://x/y?symbol=NVDA", "https://x/y?symbol=NVDA"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestClientNeverLeaksSecrets sends secrets every way a provider takes them (query parameter,
// key headers, a bearer header), lets the server echo the whole request back in failures, and
// searches every error, response URL and log line for them.
func TestClientNeverLeaksSecrets(t *testing.T) {
	const key, secret, bearer = "K3Y-fake-8c1d0e", "S3CRET/fake+9a", "b34rer-fake-77"
	echo := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			fmt.Fprintf(w, "you sent %s with %v", r.URL.RequestURI(), r.Header)
		}
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	newClient := func(base string) *Client {
		c := NewClient(Settings{Name: "leaky", BaseURL: base, Key: key, Secret: secret, Retries: 1},
			Deps{Now: func() time.Time { return testNow }, Logger: logger},
			ClientOptions{Header: map[string]string{"APCA-API-KEY-ID": key, "APCA-API-SECRET-KEY": secret, "Authorization": "Bearer " + bearer}})
		c.Sleep = func(context.Context, time.Duration) error { return nil }
		return c
	}
	q := url.Values{"apiKey": {key}, "token": {secret}, "symbol": {"NVDA"}}
	var texts []string
	for _, status := range []int{200, 400, 401, 403, 429, 500} {
		ts := httptest.NewServer(echo(status))
		c := newClient(ts.URL)
		resp, err := c.Get(context.Background(), "/v2/aggs?apikey="+url.QueryEscape(key), q)
		if err != nil {
			texts = append(texts, err.Error())
		} else {
			texts = append(texts, resp.URL, c.StatusError(resp, string(resp.Body)).Error(), c.Fail(ErrBadResponse, resp.Status, string(resp.Body)).Error())
		}
		ts.Close()
	}
	// transport failure: the URL with the key ends up inside *url.Error
	ts := httptest.NewServer(http.NotFoundHandler())
	base := ts.URL
	ts.Close()
	if _, err := newClient(base).Get(context.Background(), "/x", q); err == nil {
		t.Fatal("no error from a closed server")
	} else {
		texts = append(texts, err.Error())
	}
	texts = append(texts, logs.String())
	for _, text := range texts {
		for _, s := range []string{key, secret, url.QueryEscape(secret), bearer} {
			if strings.Contains(text, s) {
				t.Errorf("secret %q leaked in %q", s, text)
			}
		}
	}
	if !strings.Contains(strings.Join(texts, "\n"), "REDACTED") {
		t.Error("nothing was redacted: the echo server did not echo")
	}
}

func TestWindows(t *testing.T) {
	t0 := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for _, tc := range []struct {
		name     string
		from, to time.Time
		max      time.Duration
		want     []Window
	}{
		{"empty", t0, t0, day, nil},
		{"inverted", t0.Add(day), t0, day, nil},
		{"fits", t0, t0.Add(time.Hour), day, []Window{{t0, t0.Add(time.Hour)}}},
		{"exact", t0, t0.Add(2 * day), day, []Window{{t0, t0.Add(day)}, {t0.Add(day), t0.Add(2 * day)}}},
		{"ragged", t0, t0.Add(2*day + time.Minute), day, []Window{{t0, t0.Add(day)}, {t0.Add(day), t0.Add(2 * day)}, {t0.Add(2 * day), t0.Add(2*day + time.Minute)}}},
		{"no max", t0, t0.Add(40 * day), 0, []Window{{t0, t0.Add(40 * day)}}},
	} {
		got := Windows(tc.from, tc.to, tc.max)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTidy(t *testing.T) {
	t0 := time.Date(2026, 8, 3, 13, 30, 0, 0, time.UTC)
	m := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	in := []Bar{
		{Start: m(3), Close: 3}, {Start: m(-1), Close: 99}, {Start: m(1), Close: 1},
		{Start: m(3), Close: 33}, {Start: m(5), Close: 5}, {Start: m(0), Close: 10},
	}
	got := Tidy(in, m(0), m(5))
	want := []Bar{{Start: m(0), Close: 10}, {Start: m(1), Close: 1}, {Start: m(3), Close: 33}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Tidy = %v, want %v", got, want)
	}
	if got := Tidy(nil, m(0), m(5)); got == nil || len(got) != 0 {
		t.Errorf("Tidy(nil) = %#v, want an empty non-nil slice", got)
	}
}

// Bars already tidy come back as the same slice, never written to and clipped, so a caller's
// append cannot reach the source's backing array; a bar out of order, repeated or outside the
// window anywhere (first, middle or last) still takes the copying path.
func TestTidyKeepsTidyBarsWithoutACopy(t *testing.T) {
	t0 := time.Date(2026, 8, 3, 13, 30, 0, 0, time.UTC)
	m := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	backing := make([]Bar, 3, 8)
	backing[0], backing[1], backing[2] = Bar{Start: m(0), Close: 1}, Bar{Start: m(1), Close: 2}, Bar{Start: m(4), Close: 3}
	got := Tidy(backing, m(0), m(5))
	if len(got) != 3 || &got[0] != &backing[0] || cap(got) != 3 {
		t.Fatalf("Tidy of tidy bars: len %d cap %d, same array %v; want the same 3 bars clipped", len(got), cap(got), len(got) > 0 && &got[0] == &backing[0])
	}
	_ = append(got, Bar{Start: m(9), Close: 9}) // must copy: got is clipped
	if backing[:4][3].Close != 0 {
		t.Errorf("an append to Tidy's result wrote into the source's array")
	}
	for name, in := range map[string][]Bar{
		"before the window":              {{Start: m(-1), Close: 9}, {Start: m(1), Close: 1}},
		"at its end":                     {{Start: m(1), Close: 1}, {Start: m(5), Close: 9}},
		"out of order":                   {{Start: m(2), Close: 2}, {Start: m(1), Close: 1}, {Start: m(3), Close: 3}},
		"a repeat":                       {{Start: m(1), Close: 1}, {Start: m(1), Close: 11}, {Start: m(3), Close: 3}},
		"newest first":                   {{Start: m(4), Close: 4}, {Start: m(2), Close: 2}, {Start: m(0), Close: 0}},
		"newest first, with one outside": {{Start: m(6), Close: 6}, {Start: m(4), Close: 4}, {Start: m(1), Close: 1}},
	} {
		orig := fmt.Sprint(in)
		got := Tidy(in, m(0), m(5))
		for i := 1; i < len(got); i++ {
			if !got[i-1].Start.Before(got[i].Start) {
				t.Errorf("%s: Tidy = %v, not ascending", name, got)
			}
		}
		for _, b := range got {
			if b.Start.Before(m(0)) || !b.Start.Before(m(5)) {
				t.Errorf("%s: Tidy kept %v, outside the window", name, b)
			}
		}
		if len(got) > 0 && &got[0] == &in[0] {
			t.Errorf("%s: Tidy returned the input slice", name)
		}
		if fmt.Sprint(in) != orig {
			t.Errorf("%s: Tidy wrote to its input: %v, was %s", name, in, orig)
		}
	}
	if got, want := Tidy([]Bar{{Start: m(4), Close: 4}, {Start: m(2), Close: 2}, {Start: m(0), Close: 1}}, m(0), m(5)), []Bar{{Start: m(0), Close: 1}, {Start: m(2), Close: 2}, {Start: m(4), Close: 4}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Tidy of newest first = %v, want %v", got, want)
	}
	if got := Tidy([]Bar{{Start: m(1), Close: 1}, {Start: m(1), Close: 11}}, m(0), m(5)); len(got) != 1 || got[0].Close != 11 {
		t.Errorf("Tidy of a repeat = %v, want the later bar alone", got)
	}
}

func TestTrustedOrigins(t *testing.T) {
	c := NewClient(Settings{Name: "p", BaseURL: "https://API.example.com/v2"}, Deps{}, ClientOptions{Origins: []string{"https://other.example.net"}})
	for raw, want := range map[string]bool{
		"https://api.example.com/next?c=1":     true,
		"https://api.example.com:443/x":        true,
		"https://other.example.net/x":          true,
		"http://api.example.com/x":             false, // another scheme
		"https://api.example.com:8443/x":       false, // another port
		"https://api.example.com.evil.test/x":  false,
		"https://evil.test/api.example.com/x":  false,
		"ftp://api.example.com/x":              false,
		"https://user@api.example.com.evil/x/": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Trusted(u); got != want {
			t.Errorf("Trusted(%s) = %v, want %v", raw, got, want)
		}
	}
}

// An absolute URL handed to Get (a next-page link a body names) on another origin is never
// asked: the key would go with it.
func TestGetRefusesAnotherOrigin(t *testing.T) {
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	other := &scripted{}
	ots := httptest.NewServer(other)
	defer ots.Close()
	c, _ := newTestClient(ts.URL, Settings{Key: "getKEY-123456"}, ClientOptions{Header: map[string]string{"X-Api-Key": "getKEY-123456"}})
	_, err := c.Get(context.Background(), ots.URL+"/next", url.Values{"apikey": {"getKEY-123456"}})
	if !errors.Is(err, ErrRedirect) || !errors.Is(err, ErrBadResponse) || other.Hits() != 0 {
		t.Fatalf("error %v, %d requests to the other origin", err, other.Hits())
	}
	if strings.Contains(err.Error(), "getKEY-123456") {
		t.Errorf("error %q holds the key", err)
	}
}

// A retry that could only be sent after the caller's deadline is not made: not after a 503
// asking for a pause past it, not for a source paced so slowly (a per-minute pace far slower than the deadline) that its next
// request is free only after it. The fake sleeper would make any wait instant, so a retry made
// would show as a second request.
func TestRetryNotPastTheDeadline(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rate  Rate
		steps []step
	}{
		{"retry-after past the deadline", Rate{}, []step{{status: 503, header: map[string]string{"Retry-After": "20"}}}},
		{"slow pace", Rate{N: 1, Per: time.Minute}, []step{{status: 503}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &scripted{steps: tc.steps}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			c, sl := newTestClient(ts.URL, Settings{Rate: tc.rate, Retries: 3}, ClientOptions{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := c.Get(ctx, "/x", nil)
			if !errors.Is(err, ErrUnavailable) || srv.Hits() != 1 {
				t.Fatalf("error %v after %d requests, want unavailable after 1", err, srv.Hits())
			}
			if w := sl.Waits(); len(w) != 0 {
				t.Errorf("waited %v", w)
			}
			// without a deadline the same answers are retried
			srv2 := &scripted{steps: tc.steps}
			ts2 := httptest.NewServer(srv2)
			defer ts2.Close()
			c2, _ := newTestClient(ts2.URL, Settings{Rate: tc.rate, Retries: 3}, ClientOptions{})
			if _, err := c2.Get(context.Background(), "/x", nil); err != nil || srv2.Hits() != 2 {
				t.Errorf("without a deadline: %v after %d requests, want success after 2", err, srv2.Hits())
			}
		})
	}
	// the first request of a source whose next free slot is past the deadline is not held
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, sl := newTestClient(ts.URL, Settings{Rate: Rate{N: 1, Per: time.Minute}}, ClientOptions{})
	if _, err := c.Get(context.Background(), "/first", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.Get(ctx, "/second", nil)
	if !errors.Is(err, ErrUnavailable) || srv.Hits() != 1 || len(sl.Waits()) != 0 {
		t.Errorf("error %v, %d requests, waits %v: want a refusal without a wait", err, srv.Hits(), sl.Waits())
	}
}

func TestNoRetries(t *testing.T) {
	srv := &scripted{steps: []step{{status: 503}, {status: 503}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{Retries: NoRetries}, ClientOptions{})
	if _, err := c.Get(context.Background(), "/x", nil); !errors.Is(err, ErrUnavailable) || srv.Hits() != 1 {
		t.Errorf("error %v after %d requests, want one request", err, srv.Hits())
	}
}
