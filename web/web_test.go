package web

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/journal"
)

func TestRedactURLKeepsSchemeAndHostOnly(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8545":                          "http://127.0.0.1:8545",
		"https://rpc.chain.robinhood.com/":               "https://rpc.chain.robinhood.com",
		"https://arb-mainnet.g.alchemy.com/v2/SECRETKEY": "https://arb-mainnet.g.alchemy.com/…",
		"https://user:hunter2@node.example.com:8545":     "https://node.example.com:8545/…",
		"wss://node.example.com/ws?apikey=SECRET#frag":   "wss://node.example.com/…",
		"not a url":         "(hidden)",
		"/var/run/geth.ipc": "(hidden)",
	} {
		got := RedactURL(in)
		if got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
		for _, secret := range []string{"SECRET", "hunter2", "user"} {
			if strings.Contains(got, secret) {
				t.Errorf("RedactURL(%q) = %q keeps %q", in, got, secret)
			}
		}
	}
}

func TestCheckAddrRefusesNonLoopbackUnlessPublic(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:9464", "localhost:0", "[::1]:9464"} {
		if err := CheckAddr(addr, false); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, addr := range []string{"0.0.0.0:9464", ":9464", "192.168.1.5:9464", "example.com:80"} {
		err := CheckAddr(addr, false)
		if err == nil || !strings.Contains(err.Error(), "--http-public") {
			t.Errorf("%s: %v, want a refusal naming --http-public", addr, err)
		}
		if err := CheckAddr(addr, true); err != nil {
			t.Errorf("%s with public: %v", addr, err)
		}
	}
	if err := CheckAddr("9464", false); err == nil {
		t.Error("a bare port was accepted")
	}
}

func testServer(t *testing.T) (*Server, *fakeJournal) {
	t.Helper()
	j := &fakeJournal{}
	s := New(Options{Processes: []Process{{Journal: j, RigIDs: []uint64{1}}}, Poll: time.Millisecond,
		Now: func() time.Time { return time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC) }})
	return s, j
}

type fakeJournal struct {
	entries []journal.Entry
	audit   []byte
	doctor  []byte
}

func (f *fakeJournal) Since(context.Context, time.Time) ([]journal.Entry, error) {
	return f.entries, nil
}
func (f *fakeJournal) LastAudit(context.Context) (time.Time, []byte, bool, error) {
	return time.Date(2026, 11, 27, 15, 45, 0, 0, time.UTC), f.audit, f.audit != nil, nil
}
func (f *fakeJournal) LastDoctor(context.Context) (time.Time, []byte, bool, error) {
	return time.Date(2026, 11, 27, 15, 50, 0, 0, time.UTC), f.doctor, f.doctor != nil, nil
}

// The last doctor run kept in the journal is on the page: its counts, and each check, the
// failures first, escaped.
func TestThePageShowsTheLastDoctorRun(t *testing.T) {
	s, j := testServer(t)
	var b bytes.Buffer
	if err := Render(&b, s.Build(context.Background())); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no doctor run kept in this journal") {
		t.Error("a journal without a doctor run does not say so")
	}
	j.doctor = []byte(`{"at":"2026-11-27T15:50:00Z","exit":1,"checks":[
		{"check":"source","subject":"yahoo","verdict":"ok","detail":"key accepted"},
		{"check":"bar_age","subject":"tiingo","verdict":"warn","problem":"bars_late","detail":"late"},
		{"check":"source","subject":"<i>fmp</i>","verdict":"fail","problem":"plan_refused","detail":"HTTP 402","fix":"upgrade"}]}`)
	b.Reset()
	if err := Render(&b, s.Build(context.Background())); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"1 failed", "1 warning(s)", "1 ok", "run at 2026-11-27T15:50:00Z", "&lt;i&gt;fmp&lt;/i&gt;", `data-problem="plan_refused"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<i>fmp") {
		t.Error("a check's subject is not escaped")
	}
	if f, w, o := strings.Index(page, `data-problem="plan_refused"`), strings.Index(page, `data-problem="bars_late"`), strings.Index(page, `data-check="source" data-problem=""`); f > w || w > o {
		t.Errorf("rows not failures first: %d %d %d", f, w, o)
	}
}

func TestThePageIsReadOnlyAndLoopbackOnly(t *testing.T) {
	s, _ := testServer(t)
	h := s.Handler()
	do := func(method, target, host string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := do("GET", "/", "127.0.0.1:9464"); w.Code != http.StatusOK || !strings.Contains(w.Header().Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("GET /: %d %v", w.Code, w.Header())
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		if w := do(m, "/", "127.0.0.1:9464"); w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s /: %d, want 405", m, w.Code)
		}
	}
	// DNS rebinding: a page of evil.example resolving to 127.0.0.1 names its own host.
	if w := do("GET", "/", "evil.example:9464"); w.Code != http.StatusMisdirectedRequest {
		t.Errorf("GET / with a foreign Host: %d, want 421", w.Code)
	}
	if w := do("GET", "/nothing", "localhost:9464"); w.Code != http.StatusNotFound {
		t.Errorf("GET /nothing: %d", w.Code)
	}
	s.opts.Public = true
	if w := do("GET", "/", "rig.example:9464"); w.Code != http.StatusOK {
		t.Errorf("public page with a host name: %d", w.Code)
	}
}

func TestTheTemplateEscapesWhatItShows(t *testing.T) {
	s, j := testServer(t)
	j.entries = []journal.Entry{{TaskID: 3, RigID: 1, Symbol: "<script>x</script>", State: journal.StateSkipped, Reason: `"><img src=x onerror=alert(1)>`}}
	j.audit = []byte(`{"at":"2026-11-27T15:45:00Z","healthy":false,"findings":[{"check":"sources","name":"source_down","severity":"alert","source":"<b>yahoo</b>","message":"down"}]}`)
	var b bytes.Buffer
	if err := Render(&b, s.Build(context.Background())); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, raw := range []string{"<script>x", "<img src=x", "<b>yahoo"} {
		if strings.Contains(page, raw) {
			t.Errorf("the page holds %q unescaped", raw)
		}
	}
	if !strings.Contains(page, `data-name="source_down"`) || !strings.Contains(page, "&lt;b&gt;yahoo&lt;/b&gt;") {
		t.Error("the recorded audit's finding is not on the page")
	}
}

func TestTaskRowsStepsAndDistanceLevels(t *testing.T) {
	l := limits{toleranceBps: 50, sharePercent: 50}
	median := numeric.MustPrice("100.00")
	entries := []journal.Entry{
		{TaskID: 1, RigID: 1, State: journal.StateSettled, Price: numeric.MustPrice("100.10"), StoredAnswer: median.Answer(), RealizedCentiBps: 1000},
		{TaskID: 2, RigID: 1, State: journal.StateCommitted, Price: numeric.MustPrice("100.30"), ExpectedMedian: median, SelfCentiBps: 3000},
		{TaskID: 3, RigID: 1, State: journal.StateSettled, Price: numeric.MustPrice("100.60"), StoredAnswer: median.Answer(), RealizedCentiBps: 6000},
		{TaskID: 4, RigID: 1, State: journal.StateMissed},
	}
	rows := taskViews(entries, l, nil)
	var order []uint64
	for _, r := range rows {
		order = append(order, r.TaskID)
	}
	if want := []uint64{4, 3, 2, 1}; !equal(order, want) {
		t.Fatalf("order %v, want newest first %v", order, want)
	}
	byTask := map[uint64]TaskView{}
	for _, r := range rows {
		byTask[r.TaskID] = r
	}
	for id, want := range map[uint64]struct{ level, dist, median string }{
		1: {"ok", "10.00", "100.00"}, 2: {"warn", "30.00", "100.00"}, 3: {"bad", "60.00", "100.00"}, 4: {"", "", ""},
	} {
		r := byTask[id]
		if r.Level != want.level || r.Distance != want.dist || r.Median != want.median {
			t.Errorf("task %d: level %q distance %q median %q, want %+v", id, r.Level, r.Distance, r.Median, want)
		}
	}
	if byTask[2].Stored || !byTask[1].Stored {
		t.Error("the expected median of an unsettled task is not marked as such")
	}
	if !strings.Contains(string(byTask[4].Steps), colorBad) || strings.Contains(string(byTask[1].Steps), colorTodo) {
		t.Error("step bars: a missed task shows no red step, or a settled one has steps left")
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type fixedPricer struct{ res feeds.Result }

func (p fixedPricer) Price(_ context.Context, symbol string, minute time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
	r := p.res
	r.Symbol, r.Minute = symbol, minute
	return r, nil
}

func TestRecorderKeepsTheLastMinutesNewestFirst(t *testing.T) {
	rec := NewRecorder(2, nil)
	p := rec.Wrap(fixedPricer{feeds.Result{Agreed: true, Price: numeric.MustPrice("1.00")}})
	m := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	for _, call := range []struct {
		sym string
		min time.Time
	}{{"NVDA", m}, {"TSLA", m}, {"NVDA", m}, {"SPY", m.Add(time.Minute)}} {
		if _, err := p.Price(context.Background(), call.sym, call.min); err != nil {
			t.Fatal(err)
		}
	}
	got := rec.Recent()
	if len(got) != 2 || got[0].Symbol != "SPY" || got[1].Symbol != "NVDA" {
		t.Fatalf("recent: %+v", got)
	}
}

func TestEventsSplitMultilineRenderings(t *testing.T) {
	w := httptest.NewRecorder()
	if err := writeEvent(w, "<p>a</p>\n<p>b</p>\r\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := w.Body.String(), "event: live\ndata: <p>a</p>\ndata: <p>b</p>\ndata: \n\n"; got != want {
		t.Fatalf("event %q, want %q", got, want)
	}
}

// A journal that keeps accounts fills the gas and earned columns: the gas once a transaction of
// the task is mined, the earnings once the entry is final.
func TestTheMoneyColumnsComeFromTheJournalsAccounts(t *testing.T) {
	ctx := context.Background()
	j, err := journal.OpenJournal(filepath.Join(t.TempDir(), "rig.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, e := range []journal.Entry{{TaskID: 7, RigID: 2, Price: numeric.MustPrice("100.00")}, {TaskID: 8, RigID: 2, Price: numeric.MustPrice("100.00")}} {
		if _, err := j.RecordAnswer(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Advance(ctx, 7, 2, journal.StateSettled, nil); err != nil {
		t.Fatal(err)
	}
	fee := big.NewInt(3_370_000_000_001)
	for i, task := range []uint64{7, 8} {
		if _, err := j.RecordTx(ctx, journal.TxRecord{Hash: common.Hash{byte(i + 1)}, Purpose: "commit", RigID: 2, Status: journal.TxOK, GasUsed: 337000,
			EffectiveGasPrice: big.NewInt(10_000_000), Fee: fee, Entries: []journal.TaskRig{{TaskID: task, RigID: 2, Share: fee}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := j.RecordPayouts(ctx, []journal.Payout{{TaskID: 7, RigID: 2, Kind: journal.PayoutReward, Wei: big.NewInt(3_000_000_000_000), Tx: common.Hash{9}}}); err != nil {
		t.Fatal(err)
	}
	p := New(Options{Processes: []Process{{Journal: j, RigIDs: []uint64{2}}}}).Build(ctx)
	got := map[uint64][2]string{}
	for _, r := range p.Tasks {
		got[r.TaskID] = [2]string{r.GasPaid, r.Earned}
	}
	if want := map[uint64][2]string{7: {"0.000003370000000001", "0.000003"}, 8: {"0.000003370000000001", ""}}; got[7] != want[7] || got[8] != want[8] {
		t.Fatalf("money columns %v, want %v", got, want)
	}
	// An Options.Money given by the caller wins.
	p = New(Options{Processes: []Process{{Journal: j, RigIDs: []uint64{2}}}, Money: func(journal.Entry) Money { return Money{GasPaid: big.NewInt(1)} }}).Build(ctx)
	if p.Tasks[0].GasPaid != "0.000000000000000001" {
		t.Fatalf("caller's money: %+v", p.Tasks[0])
	}
}

// downChain is a node that is down: every call fails as go-ethereum's HTTP client fails, with
// the whole RPC URL in the error.
type downChain struct{ url string }

func (d downChain) err() error {
	return &url.Error{Op: "Post", URL: d.url, Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
}

func (d downChain) CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error) {
	return nil, d.err()
}

func (d downChain) BalanceAt(context.Context, common.Address, *big.Int) (*big.Int, error) {
	return nil, d.err()
}

// failingJournal cannot be read, and says so with the journal's URL.
type failingJournal struct{ err error }

func (f failingJournal) Since(context.Context, time.Time) ([]journal.Entry, error) { return nil, f.err }
func (f failingJournal) LastAudit(context.Context) (time.Time, []byte, bool, error) {
	return time.Time{}, nil, false, f.err
}

// While the node is down the page says why, and the error it quotes (go-ethereum's, with the
// whole URL) shows the URL's key as REDACTED, as the logs do: the command registered it. The
// same for a journal error that quotes a secret.
func TestThePageRedactsTheErrorsItShows(t *testing.T) {
	const key, dbPass = "9a8b7c6d5e4f30211203f4e5d6c7b8a9", "db-pAsSwOrD-1234"
	rpc := "http://127.0.0.1:1/v3/" + key
	redact.Register(redact.URLSecrets(rpc)...)
	redact.Register(dbPass)
	s := New(Options{Chain: downChain{rpc}, ChainURL: rpc, Processes: []Process{
		{Journal: failingJournal{errors.New("connecting to postgres://rig:" + dbPass + "@db/rig: refused")}, RigIDs: []uint64{1}}}})
	var b bytes.Buffer
	if err := Render(&b, s.Build(t.Context())); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, secret := range []string{key, dbPass} {
		if i := strings.Index(html, secret); i >= 0 {
			t.Errorf("the page shows %q: …%s…", secret, html[max(0, i-120):i+len(secret)])
		}
	}
	for _, want := range []string{"rigOf: rpc unavailable: Post &#34;http://127.0.0.1:1/v3/" + redact.Mark, "journal unreadable", "unreadable: connecting"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// The sources section lists every source of the symbol's feed and says what each did: one the
// reconciler stopped waiting for because an early quorum of the others agreed was not asked for
// good ("not asked: quorum reached early", muted), one still on its way when the fetch ended
// for its deadline stays "pending"; one that cannot see the minute is there as not_covered; a
// source of another symbol's feed is not.
func TestSourcesSayWhatEachSourceDid(t *testing.T) {
	quote := func(source, symbol string, status feeds.Status) feeds.Quote {
		q := feeds.Quote{Source: source, Symbol: symbol, Status: status, DistanceCentiBps: -1}
		if status.Priced() {
			q.Price, q.DistanceCentiBps = numeric.MustPrice("180.00"), 0
		}
		return q
	}
	quotes := []feeds.Quote{quote("a", "NVDA", feeds.StatusOK), quote("b", "NVDA", feeds.StatusOK), quote("c", "NVDA", feeds.StatusPending),
		quote("d", "NVDA", feeds.StatusNotCovered), quote("e", "", feeds.StatusNotCovered)}
	minute := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	early := feeds.Result{Symbol: "NVDA", Minute: minute, Agreed: true, Price: numeric.MustPrice("180.00"), Early: true, Quotes: quotes}
	late := early
	late.Early = false
	views := minuteViews([]feeds.Result{early, late}, limits{toleranceBps: 50, sharePercent: 50})
	status := func(m MinuteView) map[string]string {
		out := map[string]string{}
		for _, s := range m.Sources {
			out[s.Name] = s.Status
			if s.Bad {
				t.Errorf("%s (%s) drawn as a failure", s.Name, s.Status)
			}
		}
		return out
	}
	if got, want := status(views[0]), map[string]string{"a": "ok", "b": "ok", "c": NotAsked, "d": "not_covered"}; !maps.Equal(got, want) {
		t.Errorf("early quorum: %v, want %v", got, want)
	}
	if got, want := status(views[1]), map[string]string{"a": "ok", "b": "ok", "c": "pending", "d": "not_covered"}; !maps.Equal(got, want) {
		t.Errorf("stopped at the deadline: %v, want %v", got, want)
	}
}

// A source over its quota is named so on the page, and drawn as a failure: it was not asked.
func TestTheSourceOverQuotaIsNamed(t *testing.T) {
	over := feeds.Quote{Source: "alphavantage", Symbol: "NVDA", Status: feeds.StatusOverQuota, DistanceCentiBps: -1,
		Err: "alphavantage: over quota: its quota of 25/day is used up until 2026-11-28T09:12:00Z"}
	ok := feeds.Quote{Source: "alpaca", Symbol: "NVDA", Status: feeds.StatusOK, Price: numeric.MustPrice("180.00")}
	res := feeds.Result{Symbol: "NVDA", Minute: time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC), Agreed: true, Price: ok.Price, Quotes: []feeds.Quote{ok, over}}
	views := minuteViews([]feeds.Result{res}, limits{toleranceBps: 50, sharePercent: 50})
	for _, s := range views[0].Sources {
		if s.Name == "alphavantage" && (s.Status != "over_quota" || !s.Bad) {
			t.Errorf("the source over quota is shown %q, bad %v", s.Status, s.Bad)
		}
	}
}

// A source that failed, or was not asked for a reason of its own, is never shown bare: its row
// says what its error says, redacted (a key in a URL the error quotes is not on the page). A
// source its rate held back ("paced": the process asked it for another symbol first) is named
// with its rate and not drawn as a failure; one that failed is.
func TestSourcesShowTheirErrorRedacted(t *testing.T) {
	const key = "pagetestsecret0123456789"
	redact.Register(key)
	failed := feeds.Quote{Source: "fmp", Symbol: "NVDA", Status: feeds.StatusError, DistanceCentiBps: -1, Requests: 1,
		Err: `fmp: unavailable: request failed: Get "http://127.0.0.1:1/fmp/stable/historical-chart/1min?apikey=` + key + `": connection refused`}
	paced := feeds.Quote{Source: "massive", Symbol: "NVDA", Status: feeds.StatusPaced, DistanceCentiBps: -1, Requests: 1,
		Err: "massive: unavailable: not sent: the rate (one request every 12s) has no request free before the deadline: paced"}
	ok := feeds.Quote{Source: "alpaca", Symbol: "NVDA", Status: feeds.StatusOK, Price: numeric.MustPrice("180.00")}
	res := feeds.Result{Symbol: "NVDA", Minute: time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC), Agreed: true, Price: ok.Price,
		Quotes: []feeds.Quote{ok, failed, paced}}
	var b bytes.Buffer
	if err := Render(&b, Page{Minutes: minuteViews([]feeds.Result{res}, limits{toleranceBps: 50, sharePercent: 50})}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Contains(html, key) {
		t.Error("the page shows the key an error quoted")
	}
	rows := map[string]string{}
	for _, r := range regexp.MustCompile(`(?s)<tr( class="bad")?><td>(\w+)</td><td class="status" data-status="(\w+)">(.*?)</td>`).FindAllStringSubmatch(html, -1) {
		rows[r[2]] = r[1] + "|" + r[3] + "|" + r[4]
	}
	for name, want := range map[string]string{
		"fmp":     ` class="bad"|error|error<small class="why">fmp: unavailable: request failed: Get &#34;http://127.0.0.1:1/fmp/stable/historical-chart/1min?apikey=` + redact.Mark,
		"massive": `|paced|paced<small class="why">massive: unavailable: not sent: the rate (one request every 12s) has no request free before the deadline`,
		"alpaca":  `|ok|ok`,
	} {
		if got := rows[name]; !strings.HasPrefix(got, want) || (name == "alpaca" && got != want) {
			t.Errorf("%s's row: %q, want it to start %q", name, got, want)
		}
	}
}
