package all_test

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
	"github.com/pricerig/pricerig/sources/sim"
)

// Distinctive credentials: each must be findable in any header, query, path or Referer.
const (
	redirKey    = "rdKEY-0123456789abcdef"
	redirSecret = "rdSECRET-fedcba9876543210"
)

// keyedOptions are options that put the key where a type can put it: json's {key} in its query
// (the apikey= placement of massive, twelvedata, alphavantage and fmp), and its header variant.
var keyedOptions = map[string]map[string]string{
	"json":        {"url": "/bars/{symbol}?from={from}&to={to}&apikey={key}", "time_path": "t", "price_path": "c"},
	"json-header": {"url": "/bars/{symbol}?from={from}&to={to}", "time_path": "t", "price_path": "c", "auth_header": "X-Api-Key", "auth_scheme": ""},
}

var (
	redirNow  = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
	redirFrom = time.Date(2026, 3, 16, 14, 0, 0, 0, time.UTC)
	redirTo   = time.Date(2026, 3, 16, 15, 0, 0, 0, time.UTC)
)

// recorder is a server that records every request it gets.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) record(req *http.Request) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Clone(context.Background()))
	r.mu.Unlock()
}

func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}

// variant is one source configuration: a registered type and the options it is built with.
type variant struct{ name, typ string }

func variants() []variant {
	var out []variant
	for _, typ := range sources.Types() {
		out = append(out, variant{typ, typ})
	}
	return append(out, variant{"json-header", "json"})
}

// build builds a source of v against base with the distinctive key (and secret).
func build(t *testing.T, v variant, base string, retries int) sources.Source {
	t.Helper()
	f, _ := sources.Lookup(v.typ)
	opts := simOptions[v.name]
	if o, ok := keyedOptions[v.name]; ok {
		opts = o
	}
	set := sources.Settings{Name: v.name, Type: v.typ, BaseURL: base, Key: redirKey, Options: opts, Retries: retries,
		Rate: sources.Rate{N: 1000, Per: time.Second}, Timeout: time.Minute}
	if f.NeedsSecret {
		set.Secret = redirSecret
	}
	if v.typ == "udf" && opts == nil {
		set.Options = map[string]string{}
	}
	src, err := f.New(set, sources.Deps{Now: func() time.Time { return redirNow }})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func symbolFor(v variant) string { return sim.ProviderSymbol(v.typ, "NVDA") }

// TestRedirectToAnotherOriginIsRefused is the hostile provider of issue 11: every request is
// answered with a redirect to another origin (another port of 127.0.0.1), with the query kept or
// dropped from Location, under each redirect status. For every adapter, with its real key
// placement (alpaca's two headers, pyth/tiingo/udf Authorization, X-Finnhub-Token, the apikey=
// and apiKey= queries), the other origin must get no request at all (so no header, no query and
// no Referer quoting the first URL), the source must fail with ErrRedirect naming itself, and
// it must not ask again (the answer is the provider's, not a transient fault).
func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	evil := &recorder{}
	evilSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		evil.record(r)
		w.WriteHeader(http.StatusOK)
	}))
	defer evilSrv.Close()
	for _, v := range variants() {
		for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			for _, keepQuery := range []bool{true, false} {
				name := v.name + "/" + http.StatusText(status)
				if keepQuery {
					name += "/query-kept"
				}
				t.Run(name, func(t *testing.T) {
					provider := &recorder{}
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						provider.record(r)
						loc := evilSrv.URL + "/steal" + r.URL.Path
						if keepQuery {
							loc += "?" + r.URL.RawQuery
						}
						http.Redirect(w, r, loc, status)
					}))
					defer srv.Close()
					src := build(t, v, srv.URL, 0) // the default retries: a refused redirect must not use them
					_, err := src.Bars(context.Background(), symbolFor(v), redirFrom, redirTo)
					var e *sources.Error
					if !errors.As(err, &e) || !errors.Is(err, sources.ErrRedirect) || e.Source != v.name {
						t.Fatalf("error %v, want an *sources.Error of %s caused by ErrRedirect", err, v.name)
					}
					if n := len(provider.requests()); n != 1 {
						t.Errorf("%d requests to the provider, want 1 (no retry)", n)
					}
					for _, s := range []string{redirKey, redirSecret, url.QueryEscape(redirKey)} {
						if strings.Contains(err.Error(), s) {
							t.Errorf("error %q holds a secret", err)
						}
					}
					// the key really was in the first request, where the adapter puts it (yahoo
					// takes none: it is checked for the refusal alone)
					if v.typ != "yahoo" && !carries(provider.requests()[0], redirKey) {
						t.Errorf("the first request does not carry the key: the test would prove nothing")
					}
				})
			}
		}
	}
	if got := evil.requests(); len(got) != 0 {
		r := got[0]
		t.Errorf("the other origin got %d requests; the first: %s %s headers %v", len(got), r.Method, r.URL, r.Header)
	}
}

// carries reports whether a request holds the secret anywhere: URL, any header (Referer too).
func carries(r *http.Request, secret string) bool {
	if strings.Contains(r.URL.String(), secret) || strings.Contains(r.URL.String(), url.QueryEscape(secret)) {
		return true
	}
	for _, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, secret) || strings.Contains(v, url.QueryEscape(secret)) {
				return true
			}
		}
	}
	return false
}

// TestSameOriginRedirectIsFollowed moves every simulated provider behind a same-origin
// redirect (a relative Location to /moved/…): the bars must be the ones asked directly, and a
// provider redirecting in a loop must stop after MaxRedirects hops without a retry.
func TestSameOriginRedirectIsFollowed(t *testing.T) {
	s := sim.New(sim.Options{Seed: 1, Now: func() time.Time { return redirNow }})
	defer s.Close()
	direct := httptest.NewServer(s)
	defer direct.Close()
	loop := false
	var mu sync.Mutex
	hops := 0
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok && !loop {
			r2 := r.Clone(r.Context())
			r2.URL.Path = rest
			r2.URL.RawPath = ""
			s.ServeHTTP(w, r2)
			return
		}
		mu.Lock()
		hops++
		mu.Unlock()
		http.Redirect(w, r, "/moved"+r.URL.RequestURI(), http.StatusFound)
	}))
	defer moved.Close()
	for _, p := range sim.Providers() {
		v := variant{p, p}
		t.Run(p, func(t *testing.T) {
			want, err := buildSim(t, v, s.BaseURL(direct.URL, p)).Bars(context.Background(), symbolFor(v), redirFrom, redirTo)
			if err != nil || len(want) == 0 {
				t.Fatalf("direct: %d bars, %v", len(want), err)
			}
			got, err := buildSim(t, v, s.BaseURL(moved.URL, p)).Bars(context.Background(), symbolFor(v), redirFrom, redirTo)
			if err != nil {
				t.Fatalf("behind a same-origin redirect: %v", err)
			}
			if len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
				t.Errorf("behind a redirect %d bars, asked directly %d", len(got), len(want))
			}
		})
	}
	loop = true
	mu.Lock()
	hops = 0
	mu.Unlock()
	v := variant{"yahoo", "yahoo"}
	_, err := buildSim(t, v, s.BaseURL(moved.URL, "yahoo")).Bars(context.Background(), "NVDA", redirFrom, redirTo)
	if !errors.Is(err, sources.ErrRedirect) {
		t.Fatalf("a redirect loop: %v, want ErrRedirect", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hops != sources.MaxRedirects+1 {
		t.Errorf("a redirect loop was asked %d times, want %d (one request and its redirects, no retry)", hops, sources.MaxRedirects+1)
	}
}

func buildSim(t *testing.T, v variant, base string) sources.Source {
	t.Helper()
	f, _ := sources.Lookup(v.typ)
	set := sources.Settings{Name: v.name, Type: v.typ, BaseURL: base, Key: sim.Key, Options: simOptions[v.name],
		Rate: sources.Rate{N: 1000, Per: time.Second}, Timeout: time.Minute}
	if f.NeedsSecret {
		set.Secret = sim.Secret
	}
	src, err := f.New(set, sources.Deps{Now: func() time.Time { return redirNow }})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestKeyAcrossTheCutEveryAdapter is issue 11's cut check for every adapter: the provider's
// error body quotes the key (as CDNs and some providers echo the request) at every position
// around the error's 200-byte cut, under 400 and under 200; no two characters of it may remain
// in the error.
func TestKeyAcrossTheCutEveryAdapter(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			pos := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				status := http.StatusBadRequest
				if pos%2 == 1 {
					status = http.StatusOK
				}
				w.WriteHeader(status)
				text := strings.Repeat("e", pos) + redirKey + " was refused"
				_, _ = w.Write([]byte(`{"s":"error","errmsg":"` + text + `","status":"error","message":"` + text +
					`","error":"` + text + `","detail":"` + text + `","Error Message":"` + text + `"}`))
			}))
			defer srv.Close()
			src := build(t, v, srv.URL, sources.NoRetries)
			for pos = sources.MaxMessage - len(redirKey) - 40; pos <= sources.MaxMessage+2; pos++ {
				_, err := src.Bars(context.Background(), symbolFor(v), redirFrom, redirTo)
				if err == nil {
					t.Fatalf("key at %d: no error", pos)
				}
				for k := 2; k <= len(redirKey); k++ {
					if strings.Contains(err.Error(), redirKey[:k]) {
						t.Fatalf("key at %d: %q holds %q", pos, err, redirKey[:k])
					}
				}
			}
		})
	}
}

// FuzzTrusted checks the one origin rule with any URL a body or a Location could name: a URL the
// rule trusts has base_url's scheme, host and port exactly (as net/http would dial them), or is
// one of the declared origins.
func FuzzTrusted(f *testing.F) {
	for _, s := range []string{"https://api.example.com/x", "https://api.example.com:443/x", "https://API.example.com/x",
		"http://api.example.com/x", "https://api.example.com.evil/x", "https://evil@api.example.com/x",
		"https://api.example.com@evil/x", "//api.example.com/x", "https://[::1]:443/x", "https://api.example.com:0443/x"} {
		f.Add(s)
	}
	c := sources.NewClient(sources.Settings{Name: "f", BaseURL: "https://api.example.com/v1"}, sources.Deps{}, sources.ClientOptions{})
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil || !c.Trusted(u) {
			return
		}
		port := u.Port()
		if port == "" {
			port = "443"
		}
		if u.Scheme != "https" || !strings.EqualFold(u.Hostname(), "api.example.com") || port != "443" {
			t.Fatalf("trusted %q: scheme %q host %q port %q", raw, u.Scheme, u.Hostname(), port)
		}
	})
}
