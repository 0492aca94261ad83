package sources

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A client keeps the Date header of the last response, with its own clock read around the
// request, and the skew it bounds holds the provider's clock against ours.
func TestClientKeepsTheLastDateHeader(t *testing.T) {
	var date string
	// our clock reads testNow until the provider answers, 300 ms later; the client may read it
	// more than once before it sends (its quota budget reads it too)
	var now atomic.Pointer[time.Time]
	set := func(t time.Time) { now.Store(&t) }
	set(testNow)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set(testNow.Add(300 * time.Millisecond))
		if date == "" {
			w.Header()["Date"] = nil // net/http writes one unless told not to
		} else {
			w.Header().Set("Date", date)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	c := NewClient(Settings{Name: "test", BaseURL: srv.URL}, Deps{Now: func() time.Time { return *now.Load() }}, ClientOptions{})

	if _, err := c.Get(context.Background(), "/a", nil); err != nil {
		t.Fatal(err)
	}
	if d, ok := c.LastDate(); ok {
		t.Fatalf("a response without a Date header gave %+v", d)
	}

	// the provider's clock is 30 s ahead of ours
	set(testNow)
	date = testNow.Add(30 * time.Second).Format(http.TimeFormat)
	if _, err := c.Get(context.Background(), "/b", nil); err != nil {
		t.Fatal(err)
	}
	d, ok := c.LastDate()
	if !ok {
		t.Fatal("the Date header was not kept")
	}
	if want := (ServerDate{Date: testNow.Add(30 * time.Second), Sent: testNow, Received: testNow.Add(300 * time.Millisecond)}); d != want {
		t.Fatalf("kept %+v, want %+v", d, want)
	}
	low, high := d.Skew()
	if low != 29700*time.Millisecond || high != 31*time.Second {
		t.Errorf("skew in [%s, %s), want [29.7s, 31s)", low, high)
	}

	// an unreadable header keeps the last one read
	date = "yesterday"
	if _, err := c.Get(context.Background(), "/c", nil); err != nil {
		t.Fatal(err)
	}
	if d2, _ := c.LastDate(); d2 != d {
		t.Errorf("an unreadable Date replaced %+v with %+v", d, d2)
	}
}

// 402 and 403 are a plan's refusal, 401 a key's; an adapter's own reading of the body wins.
func TestStatusErrorTellsAPlanFromAKey(t *testing.T) {
	c, _ := newTestClient("http://example.test", Settings{}, ClientOptions{})
	for status, plan := range map[int]bool{401: false, 402: true, 403: true} {
		e := c.StatusError(&Response{Status: status}, "refused")
		if !errors.Is(e, ErrUnauthorized) || errors.Is(e, ErrNotEntitled) != plan {
			t.Errorf("HTTP %d: %v, want unauthorized, not entitled %v", status, e, plan)
		}
		if KindOf(e) != KindUnauthorized {
			t.Errorf("HTTP %d: kind %s, want %s", status, KindOf(e), KindUnauthorized)
		}
	}
	key := func(status int, body []byte) (string, error) { return "", ErrUnauthorized }
	c, _ = newTestClient("http://example.test", Settings{}, ClientOptions{ReadError: key})
	if e := c.ResponseError(&Response{Status: 403, Body: []byte(`{"message":"forbidden."}`)}); !errors.Is(e, ErrUnauthorized) || errors.Is(e, ErrNotEntitled) {
		t.Errorf("a 403 the adapter reads as a wrong key: %v", e)
	}
	plan := func(status int, body []byte) (string, error) { return "", ErrNotEntitled }
	c, _ = newTestClient("http://example.test", Settings{}, ClientOptions{ReadError: plan})
	if e := c.ResponseError(&Response{Status: 400}); e.Kind != ErrUnauthorized || !errors.Is(e, ErrNotEntitled) {
		t.Errorf("a refusal the adapter reads as the plan's: %v", e)
	}
	// a parser's error keeps its cause when the client adopts it
	parsed := Errorf("", ErrUnauthorized, "NOT_AUTHORIZED")
	parsed.Err = ErrNotEntitled
	if e := c.Adopt(200, parsed); !errors.Is(e, ErrNotEntitled) || !errors.Is(e, ErrUnauthorized) {
		t.Errorf("adopted: %v", e)
	}
}
