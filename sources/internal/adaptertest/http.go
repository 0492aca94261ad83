package adaptertest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// Server is a loopback HTTP server that records every request it answers.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

// Serve starts a Server that answers every request with status, header and body; it is closed
// when the test ends.
func Serve(t testing.TB, status int, header http.Header, body []byte) *Server {
	t.Helper()
	return Handle(t, func(w http.ResponseWriter, _ *http.Request) {
		for k, vs := range header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// Handle starts a Server that answers with h; it is closed when the test ends.
func Handle(t testing.TB, h http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests are the requests answered so far, in order.
func (s *Server) Requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

// Gone is the base URL of a server that has shut down: asking it is a transport error.
func Gone(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// Failure is an HTTP answer an adapter must turn into an error of a kind.
type Failure struct {
	Name       string
	Status     int
	Header     http.Header
	Body       string
	Kind       error
	RetryAfter time.Duration // the error must carry exactly this (0 when the answer gives none)
	Msg        string        // when set, the error's Msg must be exactly this
	MsgPart    string        // when set, the error's Msg must contain this
}

// Failures is one adapter's table of failed answers.
type Failures struct {
	Source string // the name the errors must carry
	Key    string // the source's key: no error may hold it ("" for a keyless source)
	// StatusInError requires the error to carry the answer's HTTP status.
	StatusInError bool
	// Bars asks a source named Source, with retries off, at base for a window one request
	// covers, and returns its error.
	Bars  func(t *testing.T, base string) error
	Cases []Failure
}

// Run serves each case to a fresh source, which must send exactly one request and fail with an
// *sources.Error of the case's kind, name and retry-after (and message and status where the
// table pins them), its key nowhere in the error. Last, a server that is gone must be an
// unavailable source.
func (f Failures) Run(t *testing.T) {
	t.Helper()
	for _, tc := range f.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			srv := Serve(t, tc.Status, tc.Header, []byte(tc.Body))
			err := f.Bars(t, srv.URL)
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			if check := isError(err, tc.Kind, f.Source); check != nil {
				t.Fatal(check)
			}
			var e *sources.Error
			errors.As(err, &e)
			if e.RetryAfter != tc.RetryAfter || (tc.Msg != "" && e.Msg != tc.Msg) || !strings.Contains(e.Msg, tc.MsgPart) ||
				(f.StatusInError && e.Status != tc.Status) {
				t.Errorf("error %+v, want retry-after %s, message %q (or holding %q)", e, tc.RetryAfter, tc.Msg, tc.MsgPart)
			}
			NoSecret(t, err.Error(), f.Key)
		})
	}
	t.Run("gone", func(t *testing.T) {
		err := f.Bars(t, Gone(t))
		if check := isError(err, sources.ErrUnavailable, f.Source); check != nil {
			t.Fatal(check)
		}
		NoSecret(t, err.Error(), f.Key)
	})
}

// NoSecret fails if text holds any of the secrets, as is or query-escaped.
func NoSecret(t testing.TB, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && (strings.Contains(text, s) || strings.Contains(text, url.QueryEscape(s))) {
			t.Errorf("a secret in %q", text)
		}
	}
}

// Answer is one way a server answers in a key-leak check.
type Answer struct {
	Status int
	Body   func(r *http.Request) string // may quote the request back, as some providers do
	Kind   error                        // the kind the source must report; nil: any error
}

// Echo answers each status with body(status, r): for providers whose error messages quote the
// request they refuse.
func Echo(body func(status int, r *http.Request) string, statuses ...int) []Answer {
	out := make([]Answer, len(statuses))
	for i, st := range statuses {
		out[i] = Answer{Status: st, Body: func(r *http.Request) string { return body(st, r) }}
	}
	return out
}

// Leak is how to make a source fail in every way that could carry its key into an error.
type Leak struct {
	Secrets []string // the key, and the secret where there is one
	Answers []Answer
	// Header, when set, is the header every request must carry the key in, as HeaderValue;
	// the secrets must then be in no request's URL.
	Header, HeaderValue string
	NotInURL            []string // more text no request's URL may hold (a token= parameter)
	// Bars asks a source with the secrets, retries off, at base and returns its error.
	Bars func(t *testing.T, base string) error
}

// KeyNeverLeaks serves each answer, then asks the same URL again once its server is gone (a
// transport error, which names the URL), and checks that every one is an error holding no
// secret, raw or query-escaped, and that the requests carried the key only where Header says.
// It returns the error texts in that order (answer, gone, answer, gone, …) for the caller's own
// checks.
func KeyNeverLeaks(t *testing.T, l Leak) []string {
	t.Helper()
	var texts []string
	for _, a := range l.Answers {
		srv := Handle(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(a.Status)
			_, _ = w.Write([]byte(a.Body(r)))
		})
		err := l.Bars(t, srv.URL)
		if err == nil || (a.Kind != nil && !errors.Is(err, a.Kind)) {
			t.Fatalf("status %d: error %v, want one of kind %v", a.Status, err, a.Kind)
		}
		texts = append(texts, err.Error())
		for _, r := range srv.Requests() {
			where := r.URL.String()
			if l.Header != "" {
				NoSecret(t, where, l.Secrets...)
				if got := r.Header.Get(l.Header); got != l.HeaderValue {
					t.Errorf("status %d: %s = %q, want the key there", a.Status, l.Header, got)
				}
			}
			for _, word := range l.NotInURL {
				if strings.Contains(where, word) {
					t.Errorf("status %d: %q in the request URL %s", a.Status, word, where)
				}
			}
		}
		srv.Close()
		err = l.Bars(t, srv.URL)
		if !errors.Is(err, sources.ErrUnavailable) {
			t.Fatalf("after status %d the server is gone: error %v, want unavailable", a.Status, err)
		}
		texts = append(texts, err.Error())
	}
	for _, text := range texts {
		NoSecret(t, text, l.Secrets...)
	}
	return texts
}
