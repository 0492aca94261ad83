package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// reportSources are six sources, as many as a shipped spec's feed holds for a symbol.
var reportSources = []string{"alpaca", "tiingo", "polygon", "finnhub", "twelvedata", "alphavantage"}

// windowReport is an audit of three symbols over a 30-minute window as the sources check makes
// it: every source priced a few cents apart at every minute (so distances vary), one source
// down for a stretch, and at the newest minute only the first source final.
func windowReport(t *testing.T, minutes int) audit.Report {
	t.Helper()
	from := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	rules := feeds.DefaultRules()
	var samples []audit.Sample
	for _, symbol := range []string{"NVDA", "TSLA", "SPY"} {
		for i := range minutes {
			m := from.Add(time.Duration(i) * time.Minute)
			var quotes []feeds.Quote
			for si, src := range reportSources {
				q := feeds.Quote{Source: src, Symbol: symbol, Status: feeds.StatusOK, BarTime: m, Final: true,
					Latency: time.Duration(100+si*10) * time.Millisecond, Requests: 1,
					Price: numeric.MustPrice(fmt.Sprintf("100.%02d", (i*7+si*3)%20))}
				switch {
				case i == minutes-1 && si > 0:
					q = feeds.Quote{Source: src, Symbol: symbol, Status: feeds.StatusNotFinal, Kind: sources.KindNotFinal,
						Err: src + ": bar of " + m.Format("15:04") + " final at " + m.Add(15*time.Minute).Format("15:04")}
				case src == "finnhub" && i >= 10 && i < 14:
					q = feeds.Quote{Source: src, Symbol: symbol, Status: feeds.StatusError, Kind: sources.KindUnavailable, Err: "finnhub: 503 Service Unavailable", Requests: 1}
				}
				quotes = append(quotes, q)
			}
			res := feeds.Reconcile(quotes, rules)
			res.Symbol, res.Minute = symbol, m
			samples = append(samples, audit.Sample{Result: res})
		}
	}
	src := audit.CheckSources(samples, audit.Thresholds{StaleAfter: 15 * time.Minute, NearMissPercent: 50, DriftCentiBps: 2500})
	if len(src.Observations) != 3*minutes*len(reportSources) {
		t.Fatalf("%d observations, want %d", len(src.Observations), 3*minutes*len(reportSources))
	}
	findings := append([]audit.Finding{}, src.Findings...)
	findings = append(findings, audit.Finding{Check: audit.CheckRigName, Name: audit.Unprofitable, Severity: audit.Warn,
		Address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
		Message: "the rig's key 0x5FbDB2315678afecb367f032d93F642f64180aa3 paid more gas over the window than the contract credited it: " + strings.Repeat("a long explanation without a break ", 6)})
	return audit.Report{At: from.Add(time.Duration(minutes+1) * time.Minute), Sources: src, Findings: findings,
		Window: audit.Window{From: from, To: from.Add(time.Duration(minutes) * time.Minute)}}
}

// TestTheAuditReportIsOneScreenPerSymbol: a 30-minute window of three symbols and six sources
// renders under 100 KB (the card-per-minute report drew 90 cards here, each with a bar chart),
// as one section per symbol with one distance-over-time chart, one summary table, and its
// minutes as rows of one collapsed <details>; the newest minute says which sources were not
// final yet; no bar chart of single minutes is drawn.
func TestTheAuditReportIsOneScreenPerSymbol(t *testing.T) {
	rep := windowReport(t, 30)
	b, err := WriteAuditHTML(rep, ReportOptions{ToleranceBps: 50})
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	t.Logf("the report of a 30-minute window: %d bytes", len(b))
	if len(b) >= 100_000 {
		t.Errorf("the report of a 30-minute window is %d bytes; want under 100 KB", len(b))
	}
	count := func(s string) int { return strings.Count(page, s) }
	for what, c := range map[string][2]int{
		"symbol sections":           {count(`<article class="symbol"`), 3},
		"distance-over-time charts": {count(`<svg class="timeline"`), 3},
		"summary tables":            {count(`<table class="cards summary">`), 3},
		"collapsed minute details":  {count(`<details class="minutes-detail">`), 3},
		"minute rows":               {count(`<tr data-minute=`), 3 * 30},
		// a line per source, finnhub's broken in two by its failed stretch
		"lines":                 {count(`<polyline `), 3 * (len(reportSources) + 1)},
		"per-minute cards":      {count(`<article class="minute"`), 0},
		"per-minute bar charts": {count(`<svg class="chart"`), 0},
		"open details":          {count(`<details open`), 0},
	} {
		if c[0] != c[1] {
			t.Errorf("%s: %d, want %d", what, c[0], c[1])
		}
	}
	notFinal := "not final yet: " + strings.Join(reportSources[1:], ", ")
	if n := count(notFinal); n != 3 {
		t.Errorf("%q appears %d times, want once per symbol (its newest minute)", notFinal, n)
	}
	if !strings.Contains(page, `title="finnhub: 503 Service Unavailable"`) {
		t.Error("a failed source's cell does not carry its reason")
	}
	for _, s := range []string{"<script", "<link rel=\"stylesheet\"", "<img", "http://", "https://"} {
		if strings.Contains(page, s) {
			t.Errorf("the report is not self-contained: it holds %q", s)
		}
	}
}

// TestAnAuditWithoutPricesDrawsNoChart: a window where no source gave a price draws no empty
// chart; it says there is nothing to draw.
func TestAnAuditWithoutPricesDrawsNoChart(t *testing.T) {
	m := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	res := feeds.Result{Symbol: "NVDA", Minute: m, Quotes: []feeds.Quote{
		{Source: "alpaca", Symbol: "NVDA", Status: feeds.StatusNoKey, Kind: sources.KindNoKey, Err: "ALPACA_KEY is not set", DistanceCentiBps: -1}}}
	rep := audit.Report{At: m, Sources: audit.CheckSources([]audit.Sample{{Result: res}}, audit.Thresholds{StaleAfter: 15 * time.Minute})}
	b, err := WriteAuditHTML(rep, ReportOptions{ToleranceBps: 50})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "<svg class=\"timeline\"") || !strings.Contains(string(b), "nothing to draw") {
		t.Errorf("a window without a price: want no chart and a note\n%s", b)
	}
}

// TestTheAuditReportFits1280InChromium opens the report of a 30-minute window in headless
// chromium with every minute table opened, checks that no element reaches past the 1280 px
// viewport (nor past 400 px on a phone's width), and saves the screenshot the README shows (docs/audit-report.png) when
// PRICERIG_SCREENSHOT names where to write it.
func TestTheAuditReportFits1280InChromium(t *testing.T) {
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed; CI must run the browser test")
		}
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	b, err := WriteAuditHTML(windowReport(t, 30), ReportOptions{ToleranceBps: 50})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "audit.html")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("no-first-run", true), chromedp.WindowSize(1280, 900))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("file://"+file), chromedp.WaitVisible("#sources")); err != nil {
		t.Fatal(err)
	}
	// The screenshot shows the report as it opens: the minutes collapsed.
	if dst := os.Getenv("PRICERIG_SCREENSHOT"); dst != "" {
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wide, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`(() => {
		document.querySelectorAll('details').forEach(d => d.open = true);
		const out = [];
		if (document.documentElement.scrollWidth > 1280) out.push('the page: ' + document.documentElement.scrollWidth + ' px');
		for (const e of document.querySelectorAll('body *')) {
			const r = e.getBoundingClientRect();
			if (r.width > 0 && r.right > 1280.5) out.push(e.tagName.toLowerCase() + '.' + e.className + ': right edge at ' + Math.round(r.right) + ' px');
		}
		return out.slice(0, 10);
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(wide) > 0 {
		t.Errorf("elements wider than the 1280 px viewport:\n%s", strings.Join(wide, "\n"))
	}
	// and on a phone's width, as the operator's page: the summary tables become cards, the
	// minute tables scroll inside their box
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(400, 900)); err != nil {
		t.Fatal(err)
	}
	if w, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || w > 400 {
		t.Errorf("at 400 px the report is %d px wide (%v)", w, err)
	}
	if n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('#sources svg.timeline').length`)); err != nil || n != 3 {
		t.Errorf("chromium sees %d timeline charts (%v), want 3", n, err)
	}
}
