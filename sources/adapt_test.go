package sources

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
)

func TestDateRanges(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name     string
		from, to string
		days     int
		want     []string // "first..last"
	}{
		{"empty", "2024-06-07T14:00:00Z", "2024-06-07T14:00:00Z", 7, nil},
		{"inverted", "2024-06-07T14:00:00Z", "2024-06-07T13:00:00Z", 7, nil},
		{"inside one day", "2024-06-07T13:30:00Z", "2024-06-07T20:00:00Z", 7, []string{"2024-06-07..2024-06-07"}},
		// ends exactly at UTC midnight: the last instant is still the 7th
		{"to at midnight", "2024-06-07T13:30:00Z", "2024-06-08T00:00:00Z", 7, []string{"2024-06-07..2024-06-07"}},
		// 02:00Z on the 8th is 22:00 ET on the 7th: New York's date starts the run
		{"UTC after midnight", "2024-06-08T02:00:00Z", "2024-06-08T03:00:00Z", 7, []string{"2024-06-07..2024-06-08"}},
		// winter offset is five hours: 04:59Z is 23:59 ET the day before
		{"winter", "2024-01-10T04:59:00Z", "2024-01-10T05:30:00Z", 7, []string{"2024-01-09..2024-01-10"}},
		{"runs of three", "2024-06-01T12:00:00Z", "2024-06-08T12:00:00Z", 3, []string{"2024-06-01..2024-06-03", "2024-06-04..2024-06-06", "2024-06-07..2024-06-08"}},
		{"zero days means one", "2024-06-01T12:00:00Z", "2024-06-02T12:00:00Z", 0, []string{"2024-06-01..2024-06-01", "2024-06-02..2024-06-02"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range DateRanges(at(tt.from), at(tt.to), tt.days) {
			if r.First.Location() != time.UTC || r.First.Hour() != 0 || r.Last.Hour() != 0 {
				t.Fatalf("%s: range %+v is not UTC midnights", tt.name, r)
			}
			got = append(got, r.First.Format(time.DateOnly)+".."+r.Last.Format(time.DateOnly))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCeilUnix(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		t    time.Time
		want int64
	}{
		{base, 1_700_000_000},
		{base.Add(time.Nanosecond), 1_700_000_001},
		{base.Add(999 * time.Millisecond), 1_700_000_001},
		{base.Add(-time.Nanosecond), 1_700_000_000},
	} {
		if got := CeilUnix(tt.t); got != tt.want {
			t.Errorf("CeilUnix(%v) = %d, want %d", tt.t, got, tt.want)
		}
	}
}

func TestCheckAligned(t *testing.T) {
	m := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	ny := m.In(market.NewYork)
	if err := CheckAligned([]Bar{{Start: m}, {Start: ny.Add(time.Minute)}}); err != nil {
		t.Fatalf("aligned bars refused: %v", err)
	}
	for _, off := range []time.Duration{time.Second, time.Millisecond, 30 * time.Second} {
		if err := CheckAligned([]Bar{{Start: m}, {Start: m.Add(off)}}); err == nil {
			t.Errorf("bar %v past a minute accepted", off)
		}
	}
}

func TestParseVolume(t *testing.T) {
	good := map[string]int64{"": 0, "null": 0, "0": 0, "720121": 720121, `"293189"`: 293189, "720121.0": 720121, "1.5e3": 1500, " 12.9 ": 12}
	for in, want := range good {
		if got, err := ParseVolume(in); err != nil || got != want {
			t.Errorf("ParseVolume(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "-0.5", "lots", "1e99", "0x10", `"`, "true", "[]"} {
		if _, err := ParseVolume(in); err == nil {
			t.Errorf("ParseVolume(%q) accepted", in)
		}
	}
}

// ParseVolumeBytes reads every text as ParseVolume does: the same count or the same error.
func TestParseVolumeBytesMatchesParseVolume(t *testing.T) {
	for _, in := range []string{"", "null", `"null"`, "0", "007", "720121", `"293189"`, `""`, `"`, "720121.0", "1.5e3",
		" 12 ", `" 12"`, "-1", "+5", "-0", "lots", "1e99", "0x10", "true", "[]", "999999999999999999",
		"9999999999999999999", "99999999999999999999", "12a", "１２"} {
		want, wantErr := ParseVolume(in)
		got, err := ParseVolumeBytes([]byte(in))
		if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("ParseVolumeBytes(%q) = %d, %v; ParseVolume gives %d, %v", in, got, err, want, wantErr)
		}
	}
	raw := []byte(`"293189"`)
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseVolumeBytes(raw) }); n != 0 {
		t.Errorf("ParseVolumeBytes of a plain count: %.0f allocations", n)
	}
}

func FuzzParseVolumeBytes(f *testing.F) {
	for _, s := range []string{"720121", `"293189"`, "1.5e3", "-1", "null", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, wantErr := ParseVolume(in)
		got, err := ParseVolumeBytes([]byte(in))
		if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("ParseVolumeBytes(%q) = %d, %v; ParseVolume gives %d, %v", in, got, err, want, wantErr)
		}
	})
}

func TestParseSpanAdjustmentSessions(t *testing.T) {
	spans := map[string]time.Duration{"": 0, "0": 0, "24h": 24 * time.Hour, "90m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, "0d": 0}
	for in, want := range spans {
		if got, err := ParseSpan(in); err != nil || got != want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1h", "-2d", "1w", "d", "1.5d", "99999999d", "soon"} {
		if _, err := ParseSpan(in); err == nil {
			t.Errorf("ParseSpan(%q) accepted", in)
		}
	}
	for in, want := range map[string]Adjustment{"raw": Raw, " splits ": SplitAdjusted} {
		if got, err := ParseAdjustment(in); err != nil || got != want {
			t.Errorf("ParseAdjustment(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "splits+dividends", "RAW", "adjusted"} {
		if _, err := ParseAdjustment(in); err == nil {
			t.Errorf("ParseAdjustment(%q) accepted", in)
		}
	}
	got, err := ParseSessionList(" pre, regular ,post,")
	if err != nil || !slices.Equal(got, []market.Session{market.Pre, market.Regular, market.Post}) {
		t.Errorf("ParseSessionList = %v, %v", got, err)
	}
	for _, in := range []string{"", " , ", "lunch", "pre,pre"} {
		if _, err := ParseSessionList(in); err == nil {
			t.Errorf("ParseSessionList(%q) accepted", in)
		}
	}
}

func TestCheckOptions(t *testing.T) {
	f := Factory{Options: map[string]string{"url": "", "price_path": "", "label": ""}, Required: []string{"url", "price_path"}}
	s := Settings{Name: "mine", Type: "json", Options: map[string]string{"url": "/x", "price_path": "c"}}
	if err := CheckOptions(s, f); err != nil {
		t.Fatal(err)
	}
	s.Options["lable"] = "end"
	var oe *OptionError
	if err := CheckOptions(s, f); !errors.As(err, &oe) || oe.Key != "lable" || oe.Source != "mine" || !strings.Contains(err.Error(), "known: label, price_path, url") {
		t.Fatalf("typo: %v", err)
	}
	delete(s.Options, "lable")
	s.Options["price_path"] = "  "
	if err := CheckOptions(s, f); !errors.As(err, &oe) || oe.Key != "price_path" || !strings.Contains(err.Error(), "required") {
		t.Fatalf("blank required: %v", err)
	}
}

func TestClassifyMessage(t *testing.T) {
	tests := map[string]error{
		"API limit reached. Please try again later. Remaining Limit: 0": ErrRateLimited,
		"Limit Reach . Please upgrade your plan":                        ErrRateLimited,
		"You have run over your hourly request allocation.":             ErrRateLimited,
		"Too Many Requests":                                                                         ErrRateLimited,
		"You don't have access to this resource.":                                                   ErrUnauthorized,
		"Invalid API KEY. Feel free to create a Free API Key":                                       ErrUnauthorized,
		"Restricted Endpoint: This endpoint is not available under your current…":                   ErrUnauthorized,
		"Premium Query Parameter: 'Special Endpoint : This value set for 'symbol' is not available": ErrUnauthorized,
		"Not entitled: feed 1314":                                                                   ErrUnauthorized,
		"Invalid token.":                                                                            ErrUnauthorized,
		"Error: Ticker 'XYZQ' not found":                                                            ErrUnknownSymbol,
		"unknown symbol Equity.US.X/USD":                                                            ErrUnknownSymbol,
		"Not Found":                                                                                 ErrBadResponse,
		"Update data not found":                                                                     ErrBadResponse,
		"An error occured.":                                                                         ErrBadResponse,
		"":                                                                                          ErrBadResponse,
		"No data is available on the specified dates.":                                              ErrBadResponse,
	}
	for msg, want := range tests {
		if got := ClassifyMessage(msg); got != want {
			t.Errorf("ClassifyMessage(%q) = %v, want %v", msg, got, want)
		}
	}
}

func TestProviderMessage(t *testing.T) {
	tests := map[string]string{
		`{"s":"error","errmsg":"An error occured."}`:           "An error occured.",
		`{"error": "You don't have access to this resource."}`: "You don't have access to this resource.",
		`{"detail":"Invalid token."}`:                          "Invalid token.",
		`{"Error Message": "Limit Reach ."}`:                   "Limit Reach .",
		`{"code":400,"message":"No data","status":"error"}`:    "No data",
		`{"error":{"code":403,"message":"nested"}}`:            "nested",
		`"Price update for the given ids … not found."`:        "Price update for the given ids … not found.",
		"Restricted Endpoint: not available\nsecond line":      "Restricted Endpoint: not available",
		`{"detail":[{"msg":"field required"}]}`:                `{"detail":[{"msg":"field required"}]}`,
		"":                                                     "",
	}
	for body, want := range tests {
		if got := ProviderMessage([]byte(body)); got != want {
			t.Errorf("ProviderMessage(%q) = %q, want %q", body, got, want)
		}
	}
	long := `{"error":"` + strings.Repeat("x", 50000) + `"}`
	if got := ProviderMessage([]byte(long)); len(got) > maxText+len("…") {
		t.Errorf("long message not bounded: %d bytes", len(got))
	}
	c := NewClient(Settings{Name: "p"}, Deps{}, ClientOptions{})
	if e := c.ResponseError(&Response{Status: 400, Body: []byte(long)}); len(e.Msg) > MaxMessage+len("…") {
		t.Errorf("error message not clipped: %d bytes", len(e.Msg))
	}
}

// TestSecretAcrossTheCut puts the key at every position around the error's 200-byte cut, in each
// way a body reaches an error (a message field, a first line, a parser's error), and checks that
// no part of it survives: redaction happens on the whole text, before the cut.
func TestSecretAcrossTheCut(t *testing.T) {
	const key = "cutKEY-0123456789-abcdef"
	c := NewClient(Settings{Name: "p", Key: key}, Deps{}, ClientOptions{})
	for pos := MaxMessage - len(key) - 2; pos <= MaxMessage+2; pos++ {
		pad := strings.Repeat("y", pos)
		for name, err := range map[string]*Error{
			"message field": c.ResponseError(&Response{Status: 400, Body: []byte(`{"error":"` + pad + key + ` and more words"}`)}),
			"first line":    c.ResponseError(&Response{Status: 400, Body: []byte(pad + key + " and more words\nline 2")}),
			"status":        c.StatusError(&Response{Status: 500}, pad+key+strings.Repeat("z", 300)),
			"parser":        c.Adopt(200, Errorf("", ErrBadResponse, "%s%s tail", pad, key)).(*Error),
			"query":         c.Fail(ErrBadResponse, 0, pad+"apikey="+key+"&x=1"),
		} {
			for k := 2; k <= len(key); k++ {
				if strings.Contains(err.Error(), key[:k]) {
					t.Fatalf("%s, key at %d: %q holds %q", name, pos, err.Error(), key[:k])
				}
			}
		}
	}
}

func TestResponseErrorAndAdopt(t *testing.T) {
	const key = "adaptKEY77"
	c := NewClient(Settings{Name: "p", Key: key}, Deps{Now: func() time.Time { return time.Unix(1_700_000_000, 0) }}, ClientOptions{})
	tests := []struct {
		status int
		body   string
		kind   error
		retry  time.Duration
	}{
		{404, `{"detail":"Error: Ticker 'XYZQ' not found"}`, ErrUnknownSymbol, 0},
		{404, `Not Found`, ErrBadResponse, 0},
		{400, `{"error":"Invalid API key ` + key + `"}`, ErrUnauthorized, 0},
		{400, `{"message":"too many requests"}`, ErrRateLimited, 5 * time.Second},
		{402, `Restricted Endpoint`, ErrUnauthorized, 0},
		{503, `{"error":"Invalid API key"}`, ErrUnavailable, 0}, // the status wins over words for 5xx
	}
	for _, tt := range tests {
		r := &Response{Status: tt.status, Header: http.Header{"Retry-After": {"5"}}, Body: []byte(tt.body)}
		e := c.ResponseError(r)
		if e.Kind != tt.kind || e.Status != tt.status || e.Source != "p" || e.RetryAfter != tt.retry || strings.Contains(e.Error(), key) {
			t.Errorf("%d %s: %+v", tt.status, tt.body, e)
		}
	}
	err := c.Adopt(200, Errorf("", ErrRateLimited, "slow down, %s", key))
	var e *Error
	if !errors.As(err, &e) || e.Source != "p" || e.Status != 200 || !errors.Is(err, ErrRateLimited) || strings.Contains(err.Error(), key) {
		t.Fatalf("Adopt = %#v", err)
	}
	own := Errorf("other", ErrNoData, "x")
	if got := c.Adopt(200, own); got != own {
		t.Fatalf("Adopt replaced an error that had a source: %v", got)
	}
	if got := c.Adopt(200, errors.New("plain "+key)); !errors.Is(got, ErrBadResponse) || strings.Contains(got.Error(), key) {
		t.Fatalf("Adopt(plain) = %v", got)
	}
	if c.Adopt(200, nil) != nil {
		t.Fatal("Adopt(nil) is not nil")
	}
	for status, ok := range map[int]bool{199: false, 200: true, 204: true, 299: true, 300: false, 404: false} {
		if (&Response{Status: status}).OK() != ok {
			t.Errorf("OK(%d) != %v", status, ok)
		}
	}
}

func TestCheckBaseURLAndWindow(t *testing.T) {
	for base, ok := range map[string]bool{"https://api.tiingo.com": true, "http://127.0.0.1:8080/pyth": true, "": false,
		"api.tiingo.com": false, "ftp://x.example": false, "https://": false} {
		if err := CheckBaseURL(Settings{Name: "s", BaseURL: base}); (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), "base_url")) {
			t.Errorf("CheckBaseURL(%q) = %v", base, err)
		}
	}
	now := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)
	at := now.Add(-48 * time.Hour)
	tests := []struct {
		symbol   string
		from, to time.Time
		lookback time.Duration
		kind     error
	}{
		{"NVDA", at, at.Add(time.Hour), 0, nil},
		{"NVDA", at, at, 0, nil},
		{"", at, at.Add(time.Hour), 0, ErrUnknownSymbol},
		{"  ", at, at.Add(time.Hour), 0, ErrUnknownSymbol},
		{"NVDA", at, at.Add(-time.Second), 0, ErrUnsupportedWindow},
		{"NVDA", at, at.Add(time.Hour), 72 * time.Hour, nil},
		{"NVDA", at, at.Add(time.Hour), 24 * time.Hour, ErrUnsupportedWindow},
		{"NVDA", at, at, 24 * time.Hour, nil}, // an empty window asks nothing, so it is never too old
	}
	for _, tt := range tests {
		err := CheckWindow("s", tt.symbol, tt.from, tt.to, tt.lookback, now)
		if (tt.kind == nil) != (err == nil) || (tt.kind != nil && !errors.Is(err, tt.kind)) {
			t.Errorf("CheckWindow(%q, %v, %v, %v) = %v, want %v", tt.symbol, tt.from, tt.to, tt.lookback, err, tt.kind)
		}
	}
}

func TestKeyed(t *testing.T) {
	def := Rate{N: 5, Per: time.Minute}
	f := Factory{Type: "x", NeedsKey: true, KeyHelp: "x needs a key", BaseURL: "https://api.example", DefaultRate: def, Options: map[string]string{"feed": "which feed"}}
	s, err := Keyed(Settings{Key: "k"}, f)
	if err != nil || s.BaseURL != "https://api.example" || s.Rate != def || s.Name != "x" {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	own := Rate{N: 1, Per: time.Second}
	s, err = Keyed(Settings{Name: "mine", Key: "k", BaseURL: "http://127.0.0.1:9", Rate: own, Options: map[string]string{"feed": "iex"}}, f)
	if err != nil || s.BaseURL != "http://127.0.0.1:9" || s.Rate != own || s.Name != "mine" {
		t.Fatalf("settings kept: %+v %v", s, err)
	}
	if _, err := Keyed(Settings{Name: "x"}, f); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "x needs a key in the variable key_env names") {
		t.Fatalf("no key: %v", err)
	}
	f2 := f
	f2.NeedsSecret = true
	if _, err := Keyed(Settings{Name: "x", Key: "k"}, f2); !errors.Is(err, ErrNoKey) {
		t.Fatalf("no secret: %v", err)
	}
	f2.KeyHelp = ""
	if _, err := Keyed(Settings{Name: "x"}, f2); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "x needs an API key and a secret in the variables key_env and secret_env name") {
		t.Fatalf("no key, no help of its own: %v", err)
	}
	if _, err := Keyed(Settings{Name: "x"}, Factory{BaseURL: "https://api.example"}); err != nil {
		t.Fatalf("a keyless type refused without a key: %v", err)
	}
	if _, err := Keyed(Settings{Name: "x", Key: "k", BaseURL: "ftp://nope"}, f); err == nil {
		t.Fatal("a non-http base_url accepted")
	}
	_, err = Keyed(Settings{Name: "x", Key: "k", Options: map[string]string{"bogus": "1"}}, f)
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Key != "bogus" || oe.Source != "x" {
		t.Fatalf("an unknown option: %v, want an *OptionError naming bogus", err)
	}
}

var prologueRuns atomic.Int32

// TestAdapterRunsThePrologueFirst: the Factory an adapter registers builds through Keyed on its
// own facts, so its constructor only ever sees resolved settings, and a refused setting never
// reaches it.
func TestAdapterRunsThePrologueFirst(t *testing.T) {
	// A type of its own each run: the registry is the process's, and -count=N runs this again.
	typ := fmt.Sprintf("test-adapter-prologue-%d", prologueRuns.Add(1))
	var got []Settings
	f := Adapter(Factory{Type: typ, NeedsKey: true, BaseURL: "https://api.example", DefaultRate: Rate{N: 7, Per: time.Minute},
		Options: map[string]string{"feed": "which feed"}}, func(s Settings, d Deps) (Source, error) {
		got = append(got, s)
		return nil, nil
	})
	if r, ok := Lookup(typ); !ok || r.New == nil || r.Build == nil || r.BaseURL != f.BaseURL {
		t.Fatalf("registered %+v, %v", r, ok)
	}
	if _, err := f.New(Settings{Key: "k"}, Deps{}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != typ || got[0].BaseURL != "https://api.example" || got[0].Rate != f.DefaultRate {
		t.Fatalf("the constructor got %+v, want the settings Keyed resolved", got)
	}
	for _, s := range []Settings{{}, {Key: "k", Options: map[string]string{"fed": "iex"}}, {Key: "k", BaseURL: "ftp://x"}} {
		if _, err := f.New(s, Deps{}); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if len(got) != 1 {
		t.Errorf("the constructor ran on %d refused settings", len(got)-1)
	}
}

func TestClosedBy(t *testing.T) {
	to := time.Date(2026, 3, 16, 15, 0, 0, 0, time.UTC)
	if got := ClosedBy(to, to.Add(time.Hour)); !got.Equal(to) {
		t.Errorf("a closed window: %v", got)
	}
	if got := ClosedBy(to, to.Add(-90*time.Second)); !got.Equal(to.Add(-2 * time.Minute)) {
		t.Errorf("a window into the minute in progress: %v, want the start of now's minute", got)
	}
}

func TestRowBar(t *testing.T) {
	start := time.Date(2026, 11, 25, 10, 30, 0, 0, time.FixedZone("EST", -5*3600))
	bar, ok, err := RowBar(0, start, []byte(`"169.42"`), []byte(`1200`))
	if err != nil || !ok || bar.Close != 16942000000 || bar.Volume != 1200 || bar.Start.Location() != time.UTC || !bar.Start.Equal(start) {
		t.Fatalf("%+v %v %v", bar, ok, err)
	}
	if _, ok, err := RowBar(1, start, []byte(`null`), nil); ok || err != nil {
		t.Fatalf("null close: %v %v", ok, err)
	}
	for _, c := range [][]byte{nil, []byte(`"abc"`), []byte(`-1`)} {
		if _, _, err := RowBar(2, start, c, nil); !errors.Is(err, ErrBadResponse) {
			t.Errorf("close %q: %v", c, err)
		}
	}
	if _, _, err := RowBar(3, start, []byte(`1`), []byte(`"lots"`)); !errors.Is(err, ErrBadResponse) {
		t.Errorf("bad volume: %v", err)
	}
}
