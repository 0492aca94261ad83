package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/devnet"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources/sim"
	"github.com/pricerig/pricerig/web"
)

// findChromium returns Debian's chromium, or fails the test in CI (CI=true) and skips it
// elsewhere: CI must run the browser test, a laptop without chromium need not.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; CI must run the browser test (.ci/run installs it with apt-get)")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// browser is a headless chromium with a fresh profile, and every console error it saw.
type browser struct {
	ctx context.Context

	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T, ctx context.Context) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1280, 900),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{ctx: bctx}
	// Start the browser, turn the log domain on (network and CSP errors are log entries), and
	// collect every error and uncaught exception from then on.
	if err := chromedp.Do(bctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	messages := chromedp.Console(bctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.errors = append(b.errors, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
				b.mu.Unlock()
			}
		}
	}()
	return b
}

func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.errors)
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func evaluate[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor polls a JavaScript predicate until it is true; only the test's context bounds it (a
// broken run), not a poll timeout of its own (2 minutes ran out under load).
func (b *browser) waitFor(t *testing.T, what, js string) {
	t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(0))); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (b *browser) screenshot(t *testing.T, path string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// noOverflowAt narrows the window and checks that nothing is wider than it.
func (b *browser) noOverflowAt(t *testing.T, width int64) {
	t.Helper()
	b.do(t, chromedp.EmulateViewport(width, 900))
	got := evaluate[[]int](t, b, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
	if got[0] > got[1] || int64(got[1]) != width {
		t.Errorf("at %d px the page is %d px wide (viewport %d): it overflows", width, got[0], got[1])
	}
}

// artifacts is where the browser test saves its screenshots: $PRICERIG_ARTIFACTS when set
// (CI keeps them), else the test's temporary folder.
func artifacts(t *testing.T) string {
	if dir := os.Getenv("PRICERIG_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// gatedPricer holds the devnet's in-process rigs at pricing until the gate opens, so the
// CLI rig's task waits in "committed" (a reveal opens once every drawn rig committed) for as
// long as the test needs to see it there.
type gatedPricer struct {
	gate <-chan struct{}
	next rig.Pricer
}

func (g gatedPricer) Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return feeds.Result{}, ctx.Err()
	}
	return g.next.Price(ctx, symbol, minute, opts...)
}

// The operator's page in a real browser: a devnet, a separate `pricerig rig --http` reaching
// the chain through a node with a key in its URL, and headless chromium. The page loads without
// a console error, a task's phase advances on the page without a reload, every settled task
// shows the journal's answer and distance and the chain's stored median, every source of the
// spec's feed, the page fits 1280 px and 400 px, the audit exits 0 on the clean run and its HTML
// report passes the same checks offline; then the node goes down and the page says so without
// showing any secret.
func TestOperatorPageInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run in a browser")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	b := newBrowser(t, ctx)
	dir := artifacts(t)

	spec, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	d, err := devnet.Start(ctx, devnet.Options{Spec: spec, Layout: []int{1, 1}, Instant: true, L1Interval: testL1Interval,
		WrapPricer: func(_ int, p rig.Pricer) rig.Pricer { return gatedPricer{gate: gate, next: p} }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	key := d.Funded
	if err := d.RegisterRig(ctx, key); err != nil {
		t.Fatal(err)
	}
	client, err := d.Chain.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	contract := agentrig.NewContract(client, d.Contract)
	operator := crypto.PubkeyToAddress(key.PublicKey)
	balanceBefore, err := client.BalanceAt(ctx, operator, nil) // from here on the key pays only the rig's gas
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PRICERIG_TEST_OPERATOR", hex.EncodeToString(crypto.FromECDSA(key)))
	journal := filepath.Join(t.TempDir(), "rig.db")
	// The rig reaches the chain as at a hosted RPC provider, with its key in the URL's path; the
	// test takes that node down at the end.
	node := newKeyedNode(t, d.Chain.URL)
	// One provider never answers the rig: each fetch ends on an early quorum of the others.
	const hung = "tiingo"
	simURL := hangingSim(t, d.SimURL, hung)
	rigCtx, stopRig := context.WithCancel(ctx)
	var out, errOut syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(rigCtx, []string{"rig", "--rpc", node.URL(), "--contract", d.Contract.Hex(),
			"--key-env", "PRICERIG_TEST_OPERATOR", "--sim", simURL, "--config", unpacedSpec(t, hung),
			"--journal", journal, "--from-block", "1", "--http", "127.0.0.1:0", "--l1-interval", testL1Interval.String()}, strings.NewReader(""), &out, &errOut)
	}()
	defer func() {
		stopRig()
		if code := <-done; code != 0 {
			t.Errorf("rig exited %d:\n%s", code, errOut.String())
		}
	}()
	var page string
	for page == "" {
		if i := strings.Index(errOut.String(), "page=http://"); i >= 0 {
			page = strings.Fields(errOut.String()[i+len("page="):])[0]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("rig exited %d:\n%s", code, errOut.String())
		case <-ctx.Done():
			t.Fatalf("no page URL in the rig's log:\n%s", errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}

	b.do(t, chromedp.Navigate(page), chromedp.WaitVisible("#tasks"))
	if title := evaluate[string](t, b, `document.title`); title != "pricerig rig" {
		t.Errorf("title %q", title)
	}
	// A mark a reload would wipe.
	evaluate[bool](t, b, `window.__sameDocument = true`)
	b.waitFor(t, "the live connection", `document.getElementById("conn").textContent === "live"`)

	symbols := []string{"NVDA", "TSLA", "SPY"}
	// The minute is a regular-session minute whatever the time of the run: the last one that
	// closed at least 25 hours ago, past the free plans' 24 h delay of massive and alphavantage,
	// so that every provider whose one request is a day (fmp), a day's window (massive) or a
	// month (alphavantage) is asked, for three symbols at once. Ordered during the regular
	// session, such a minute once showed fmp, massive and alphavantage as "error" in a few ms:
	// the rig's one rate limiter per source (fmp 250/day, the others 5/min) had no request free
	// before the round's deadline for the second and third symbol. A per-minute rate's are
	// "paced" now, with the rate named on the page (sources.ErrPaced); a daily allowance (fmp's
	// 250/day) paces nothing (issue 32).
	minute := devnet.DefaultMinute(time.Now().Add(-25*time.Hour), []market.Session{market.Regular})
	if !market.InSessions(minute, []market.Session{market.Regular}) {
		t.Fatalf("%s is not a regular-session minute", minute)
	}
	ids, err := d.Order(ctx, symbols, minute)
	if err != nil {
		t.Fatal(err)
	}
	first := fmt.Sprintf(`tr.task[data-task="%d"]`, ids[0])
	b.waitFor(t, "the first task committed on the page", `(document.querySelector('`+first+`') || {}).dataset?.state === "committed"`)
	close(gate) // the other rigs answer, the tasks reveal and settle
	b.waitFor(t, "every task settled on the page",
		fmt.Sprintf(`document.querySelectorAll('tr.task[data-state="settled"]').length === %d`, len(ids)))
	if !evaluate[bool](t, b, `window.__sameDocument === true`) {
		t.Fatal("the page was reloaded: the phase must advance live")
	}

	// Every settled task of the journal is on the page with its answer and distance.
	j, err := rigjournal.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	entries, err := j.Since(ctx, time.Time{})
	if err != nil || len(entries) != len(ids) {
		t.Fatalf("journal: %d entries (%v), want %d", len(entries), err, len(ids))
	}
	// The median shown is the one the contract stored (answerOf), read from the chain, not from
	// the journal the page reads.
	type row struct{ Answer, Median, Distance, Symbol string }
	for _, e := range entries {
		if e.State != rigjournal.StateSettled {
			t.Fatalf("task %d is %s in the journal", e.TaskID, e.State)
		}
		stored, err := contract.AnswerOf(ctx, new(big.Int).SetUint64(e.TaskID))
		if err != nil || !stored.Agreed {
			t.Fatalf("task %d: answerOf %+v (%v), want an agreed answer", e.TaskID, stored, err)
		}
		got := evaluate[row](t, b, fmt.Sprintf(`(() => { const r = document.querySelector('tr.task[data-task="%d"][data-rig="%d"]');
			return {Answer: r.querySelector('.answer').textContent.trim(), Median: r.querySelector('.median').textContent.trim(),
				Distance: r.querySelector('.distance .bps').textContent.trim(), Symbol: r.querySelector('[data-label="symbol"]').textContent.trim()}; })()`, e.TaskID, e.RigID))
		want := row{Answer: e.Price.String(), Median: numeric.FormatScaled(numeric.AnswerInt(stored.Answer)),
			Distance: feeds.FormatCentiBps(e.RealizedCentiBps), Symbol: e.Symbol}
		if got != want {
			t.Errorf("task %d on the page: %+v; journal and chain %+v", e.TaskID, got, want)
		}
	}
	// Every settled task shows the gas it cost the rig and what it earned, as the journal's
	// accounts hold them; what it earned adds up to the contract's credits of the rig's key. The
	// last settle's receipt may reach the journal a poll after the task shows settled: each row
	// is read again until page and journal agree.
	credits, err := contract.Credits(ctx, operator)
	if err != nil {
		t.Fatal(err)
	}
	earned := new(big.Int)
	for _, e := range entries {
		for {
			l, err := j.Ledger(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			m, _ := l.Task(e.TaskID, e.RigID)
			got := evaluate[[]string](t, b, fmt.Sprintf(`(() => { const r = document.querySelector('tr.task[data-task="%d"][data-rig="%d"]');
				return [r.querySelector('.gas').textContent.trim(), r.querySelector('.earned').textContent.trim()]; })()`, e.TaskID, e.RigID))
			if m.GasPaid != nil && m.GasPaid.Sign() > 0 && m.Earned.Sign() > 0 &&
				got[0] == audit.FormatETH(m.GasPaid) && got[1] == audit.FormatETH(m.Earned) {
				earned.Add(earned, m.Earned)
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("task %d: the page shows gas %q and earned %q, the journal %v and %v", e.TaskID, got[0], got[1], m.GasPaid, m.Earned)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if earned.Cmp(credits) != 0 {
		t.Errorf("the journal's earnings add up to %s wei, the contract credits the rig's key %s wei", earned, credits)
	}
	// Each priced minute lists every source of the symbol's feed in the spec, each priced, not
	// covered at the minute, paced (with its rate said) or, the hung one, "not asked" (an early
	// quorum ended the fetch before it answered): a settled task's minute has no source
	// "pending" for good, and none "error".
	var paced []string // the sources shown paced, one entry a symbol
	for _, s := range symbols {
		// each row: its cells' text, the status cell's status alone, then the status's why
		rows := evaluate[[][]string](t, b, fmt.Sprintf(`[...document.querySelectorAll('article.minute[data-symbol="%s"] tbody tr')].map(function (r) {
			const cells = [...r.querySelectorAll('td')].map(function (c) { return c.dataset.status || c.textContent.trim(); });
			const why = r.querySelector('.why');
			return cells.concat([why ? why.textContent : '']);
		})`, s))
		var want []string
		for _, f := range d.Spec.Feeds {
			if f.Symbol == s {
				for _, fs := range f.Sources {
					want = append(want, fs.Source)
				}
			}
		}
		var names []string
		priced := 0
		for _, r := range rows {
			names = append(names, r[0])
			switch {
			case r[0] == hung && r[1] != web.NotAsked:
				t.Errorf("%s: the hung source %s is %q on the page, want %q", s, r[0], r[1], web.NotAsked)
			case r[0] != hung && r[1] == web.NotAsked:
				// a slower source an early quorum of the others ended, as the hung one
			case r[1] == string(feeds.StatusPaced):
				// asked for another symbol first: its rate had no request free before the round's
				// deadline, which the page says
				if !strings.Contains(r[5], "the rate (one request every") {
					t.Errorf("%s: source %s is paced on the page without its rate: %q", s, r[0], r)
				}
				paced = append(paced, r[0])
			case r[0] != hung && !slices.Contains([]feeds.Status{feeds.StatusOK, feeds.StatusCarried, feeds.StatusNotCovered}, feeds.Status(r[1])):
				t.Errorf("%s: source %s is %q on the page (its row: %q)", s, r[0], r[1], r)
			default:
				if r[0] != hung && (r[1] == string(feeds.StatusOK) || r[1] == string(feeds.StatusCarried)) {
					priced++
				}
			}
		}
		if priced < d.Spec.Rules.MinSources {
			t.Errorf("%s: %d sources priced on the page, fewer than the spec's min_sources %d", s, priced, d.Spec.Rules.MinSources)
		}
		if len(want) == 0 || !slices.Equal(names, want) {
			t.Errorf("%s: sources %v on the page, the spec's feed has %v", s, names, want)
		}
	}
	// fmp's 250/day is an allowance, spent as needed: the three symbols ordered at once are
	// never paced by it (it was one request every 5m45.6s, paced for two of the three)
	if slices.Contains(paced, "fmp") {
		t.Errorf("fmp is paced on the page for some of %v (paced: %v): a daily allowance paces nothing", symbols, paced)
	}
	b.screenshot(t, filepath.Join(dir, "operator-page-1280.png"))
	b.noOverflowAt(t, 400)
	b.screenshot(t, filepath.Join(dir, "operator-page-400.png"))
	b.do(t, chromedp.EmulateViewport(1280, 900))

	// The audit keeps its report in the journal: the page shows it without a reload; and its
	// HTML report opens offline with the same sections.
	report := filepath.Join(t.TempDir(), "audit.html")
	code, auditOut, auditErr := runCLI(t, "audit", "--sim", d.SimURL, "--config", instantSpec(t), "--journal", journal,
		"--since", "15m", "--html", report)
	// What the audit's rig check must find, from the chain: every task settled agreed at the
	// stored median, so the one rig finding there can be is the rig's loss (unprofitable) when
	// the gas its key paid over the run exceeds what the contract credits it. The sources check
	// judges the simulator's tape over the window (a minute with no trade, such as the first of
	// a pre-market session, is carried from hours before: source_stale), which the chain does not
	// decide. The exit is the README's for the findings: 0 healthy, 1 findings, 2 could not run.
	balanceAfter, err := client.BalanceAt(ctx, operator, nil)
	if err != nil {
		t.Fatal(err)
	}
	spent := new(big.Int).Sub(balanceBefore, balanceAfter)
	var wantRig []string
	if spent.Cmp(credits) > 0 {
		wantRig = []string{audit.Unprofitable}
	}
	_, kept, _, err := j.LastAudit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Checks   []struct{ Name, State string }
		Findings []struct{ Check, Name string }
	}
	if err := json.Unmarshal(kept, &rep); err != nil {
		t.Fatalf("the audit kept no report in the journal: %v", err)
	}
	var rigFound []string
	for _, f := range rep.Findings {
		if f.Check == audit.CheckRigName {
			rigFound = append(rigFound, f.Name)
		}
	}
	wantExit := 0
	if len(rep.Findings) > 0 {
		wantExit = 1
	}
	for _, c := range rep.Checks {
		if c.State == string(audit.CheckError) {
			wantExit = 2
		}
	}
	if code != wantExit || wantExit == 2 || !slices.Equal(rigFound, wantRig) {
		t.Fatalf("audit exited %d (its report says %d) with rig findings %v; the key paid %s wei of gas against %s wei credited: want exit 0 or 1 and rig findings %v\n%s\n%s",
			code, wantExit, rigFound, spent, credits, wantRig, auditOut, auditErr)
	}
	b.waitFor(t, "the audit on the page", `document.querySelector('#audit .checks') !== null`)
	if !evaluate[bool](t, b, `window.__sameDocument === true`) {
		t.Fatal("the page was reloaded to show the audit")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors on the page:\n%s", strings.Join(errs, "\n"))
	}

	b.do(t, chromedp.Navigate("file://"+report), chromedp.WaitVisible("#audit"))
	if n := evaluate[int](t, b, `document.querySelectorAll('script, link[rel="stylesheet"], img, iframe').length + performance.getEntriesByType("resource").length`); n != 0 {
		t.Errorf("the audit report loads %d external things; it must be self-contained", n)
	}
	for _, e := range entries {
		got := evaluate[string](t, b, fmt.Sprintf(`(document.querySelector('tr.task[data-task="%d"][data-rig="%d"] .answer') || {}).textContent`, e.TaskID, e.RigID))
		if strings.TrimSpace(got) != e.Price.String() {
			t.Errorf("audit report: task %d answer %q, journal %s", e.TaskID, got, e.Price)
		}
	}
	if n := evaluate[int](t, b, `document.querySelectorAll('#sources svg.timeline').length`); n == 0 {
		t.Error("the audit report draws no source chart")
	}
	b.screenshot(t, filepath.Join(dir, "audit-report-1280.png"))
	b.noOverflowAt(t, 400)
	b.screenshot(t, filepath.Join(dir, "audit-report-400.png"))
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}

	// The node goes down: the page says so live, quoting go-ethereum's error, which carries the
	// whole RPC URL; neither the page, its live update, nor /metrics shows the URL's key, a source
	// key (with --sim every source holds the simulator's key and secret) or the operator's key.
	b.do(t, chromedp.Navigate(page), chromedp.WaitVisible("#rigs"))
	b.waitFor(t, "the live connection", `document.getElementById("conn").textContent === "live"`)
	node.Down()
	b.waitFor(t, "the node's failure on the page", `[...document.querySelectorAll('#rigs td[data-label="error"]')].some(c => c.textContent.includes("rpc unavailable"))`)
	shown := evaluate[string](t, b, `[...document.querySelectorAll('#rigs td[data-label="error"]')].map(c => c.textContent).join("\n")`)
	if !strings.Contains(shown, node.Host()) {
		t.Fatalf("the page's error does not quote the node's address, so the check below proves nothing: %s", shown)
	}
	texts := map[string]string{"the page": evaluate[string](t, b, `document.documentElement.outerHTML`),
		"the page loaded again": httpGet(t, ctx, page), "/metrics": httpGet(t, ctx, strings.TrimSuffix(page, "/")+"/metrics")}
	secrets := map[string]string{"the RPC URL's key": node.Key, "the sources' key": sim.Key, "the sources' secret": sim.Secret,
		"the operator's private key": hex.EncodeToString(crypto.FromECDSA(key))}
	for where, text := range texts {
		for what, secret := range secrets {
			if i := strings.Index(strings.ToLower(text), strings.ToLower(secret)); i >= 0 {
				t.Errorf("%s shows %s: …%s…", where, what, text[max(0, i-160):min(len(text), i+len(secret)+40)])
			}
		}
	}
	b.screenshot(t, filepath.Join(dir, "operator-page-node-down.png"))
}

// keyedNode stands for a hosted RPC provider in front of the devnet's node: it answers JSON-RPC
// at /v3/KEY only, as Infura does, and can be taken down.
type keyedNode struct {
	Key string
	srv *httptest.Server
}

func newKeyedNode(t *testing.T, target string) *keyedNode {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	n := &keyedNode{Key: "9" + hex.EncodeToString(crypto.Keccak256([]byte(t.Name())))[:31]}
	proxy := httputil.NewSingleHostReverseProxy(u)
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// No websocket: a hijacked connection would hold Down up; the rig polls instead.
		if r.URL.Path != "/v3/"+n.Key || r.Header.Get("Upgrade") != "" {
			http.NotFound(w, r)
			return
		}
		r.URL.Path = "/"
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(n.Down)
	return n
}

// URL is the node's URL, key included, as an operator passes it to --rpc.
func (n *keyedNode) URL() string { return n.srv.URL + "/v3/" + n.Key }

// Host is the node's address, which its errors name.
func (n *keyedNode) Host() string { return strings.TrimPrefix(n.srv.URL, "http://") }

// Down stops the node: its port refuses connections from then on.
func (n *keyedNode) Down() {
	n.srv.CloseClientConnections()
	n.srv.Close()
}

// hangingSim serves the simulator at target but never answers provider's requests (they wait
// until the client gives up), and returns its URL for --sim.
func hangingSim(t *testing.T, target, provider string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/"+provider+"/") {
			<-r.Context().Done()
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// unpacedSpec is instantSpec with source's rate lifted: a source the test holds hung would
// otherwise have its next request refused at once by its own pacing (tiingo's 50 an hour lets
// one request a round pass, and a round's deadline is a context deadline), and the page would
// rightly say rate_limited instead of what the test looks at.
func unpacedSpec(t *testing.T, source string) string {
	t.Helper()
	file := instantSpec(t)
	spec, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?m)^(  ` + source + `:\n(?:    .*\n)*?    rate: )\S+$`)
	if !block.Match(spec) {
		t.Fatalf("the spec sets no rate for %s", source)
	}
	if err := os.WriteFile(file, block.ReplaceAll(spec, []byte("${1}1000/s")), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// httpGet reads url's body.
func httpGet(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s (%v)", url, resp.Status, err)
	}
	return string(body)
}
