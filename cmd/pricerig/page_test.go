package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
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
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/devnet"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
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

// The operator's page in a real browser: a devnet, a separate `pricerig rig --http`, and
// headless chromium. The page loads without a console error, a task's phase advances on the
// page without a reload, every settled task shows the journal's answer and distance, the page
// fits 1280 px and 400 px, and the audit's HTML report passes the same checks offline.
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
	d, err := devnet.Start(ctx, devnet.Options{Spec: spec, L1Interval: testL1Interval, Layout: []int{1, 1},
		WrapPricer: func(_ int, p rig.Pricer) rig.Pricer { return gatedPricer{gate: gate, next: p} }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	key := d.Funded
	if err := d.RegisterRig(ctx, key); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PRICERIG_TEST_OPERATOR", hex.EncodeToString(crypto.FromECDSA(key)))
	journal := filepath.Join(t.TempDir(), "rig.db")
	rigCtx, stopRig := context.WithCancel(ctx)
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(rigCtx, []string{"rig", "--rpc", d.Chain.URL, "--contract", d.Contract.Hex(),
			"--key-env", "PRICERIG_TEST_OPERATOR", "--sim", d.SimURL, "--config", "../../sources.yaml",
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
	ids, err := d.Order(ctx, symbols, devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions))
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
	type row struct{ Answer, Median, Distance, Symbol string }
	for _, e := range entries {
		if e.State != rigjournal.StateSettled {
			t.Fatalf("task %d is %s in the journal", e.TaskID, e.State)
		}
		got := evaluate[row](t, b, fmt.Sprintf(`(() => { const r = document.querySelector('tr.task[data-task="%d"][data-rig="%d"]');
			return {Answer: r.querySelector('.answer').textContent.trim(), Median: r.querySelector('.median').textContent.trim(),
				Distance: r.querySelector('.distance .bps').textContent.trim(), Symbol: r.querySelector('[data-label="symbol"]').textContent.trim()}; })()`, e.TaskID, e.RigID))
		want := row{Answer: e.Price.String(), Distance: feeds.FormatCentiBps(e.RealizedCentiBps), Symbol: e.Symbol}
		want.Median = got.Median // checked below: the stored median is not in a journal field as text
		if got != want {
			t.Errorf("task %d on the page: %+v, journal %+v", e.TaskID, got, want)
		}
		if got.Median == "" || got.Median == "—" {
			t.Errorf("task %d shows no stored median", e.TaskID)
		}
	}
	// Every settled task shows the gas it cost the rig and what it earned, as the journal's
	// accounts hold them; what it earned adds up to the contract's credits of the rig's key. The
	// last settle's receipt may reach the journal a poll after the task shows settled: each row
	// is read again until page and journal agree.
	client, err := d.Chain.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	credits, err := agentrig.NewContract(client, d.Contract).Credits(ctx, crypto.PubkeyToAddress(key.PublicKey))
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
	// Each priced minute has its sources, each with a status.
	for _, s := range symbols {
		n := evaluate[int](t, b, fmt.Sprintf(`document.querySelectorAll('article.minute[data-symbol="%s"] tbody tr').length`, s))
		if n < 3 {
			t.Errorf("%s: %d sources on the page, want the spec's", s, n)
		}
	}
	// Nothing secret: the operator's key is not on the page.
	html := evaluate[string](t, b, `document.documentElement.outerHTML`)
	if strings.Contains(strings.ToLower(html), hex.EncodeToString(crypto.FromECDSA(key))) {
		t.Fatal("the page shows the operator's private key")
	}
	b.screenshot(t, filepath.Join(dir, "operator-page-1280.png"))
	b.noOverflowAt(t, 400)
	b.screenshot(t, filepath.Join(dir, "operator-page-400.png"))
	b.do(t, chromedp.EmulateViewport(1280, 900))

	// The audit keeps its report in the journal: the page shows it without a reload; and its
	// HTML report opens offline with the same sections.
	report := filepath.Join(t.TempDir(), "audit.html")
	code, auditOut, auditErr := runCLI(t, "audit", "--sim", d.SimURL, "--config", "../../sources.yaml", "--journal", journal,
		"--since", "15m", "--html", report)
	if code == exitBadInput {
		t.Fatalf("audit exited %d:\n%s\n%s", code, auditOut, auditErr)
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
	if n := evaluate[int](t, b, `document.querySelectorAll('#sources svg.chart').length`); n == 0 {
		t.Error("the audit report draws no source chart")
	}
	b.screenshot(t, filepath.Join(dir, "audit-report-1280.png"))
	b.noOverflowAt(t, 400)
	b.screenshot(t, filepath.Join(dir, "audit-report-400.png"))
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
