package web

import (
	"bytes"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/rig/journal"
)

// ReportOptions say what an audit's HTML report shows besides the report itself.
type ReportOptions struct {
	// Entries are the journal's entries over the audited window (the rig section); none when
	// the audit had no journal.
	Entries        []journal.Entry
	Journal        bool   // a journal was audited: an empty Entries means no task in the window
	ToleranceBps   uint32 // the job's tolerance, from the spec
	SelfCheckShare int    // percent of the tolerance past which a distance is amber; default 50
	Money          func(journal.Entry) Money
}

// AuditPage is an audit run as the page's sections: the sources at every audited minute, the
// rig's tasks of the window, the balances and every finding.
func AuditPage(rep audit.Report, o ReportOptions) Page {
	if o.SelfCheckShare <= 0 {
		o.SelfCheckShare = 50
	}
	l := limits{toleranceBps: o.ToleranceBps, sharePercent: o.SelfCheckShare}
	p := Page{Title: "pricerig audit", Static: true, Generated: rep.At.UTC().Format(time.RFC3339)}
	verdict := "healthy"
	if !rep.Healthy() {
		verdict = fmt.Sprintf("%d finding(s)", len(rep.Findings))
	}
	p.Facts = append(p.Facts, Fact{"verdict", verdict},
		Fact{"window", rep.Window.From.UTC().Format("2006-01-02 15:04") + " – " + rep.Window.To.UTC().Format("2006-01-02 15:04 UTC")})
	if o.ToleranceBps > 0 {
		p.Facts = append(p.Facts, Fact{"tolerance", fmt.Sprintf("%d bps (amber past %d %%)", o.ToleranceBps, o.SelfCheckShare)})
	}
	p.Facts = append(p.Facts, Fact{"took", fmt.Sprintf("%d ms", rep.Took.Milliseconds())})
	p.Tasks = taskViews(o.Entries, l, o.Money)
	if !o.Journal {
		p.TasksNote = "no journal audited (--journal)"
	}
	p.Symbols = auditSymbolViews(rep, l)
	for _, b := range rep.Balances {
		p.Balances = append(p.Balances, Fact{b.Address.Hex(), audit.FormatETH(b.Wei)})
	}
	p.Audit = &AuditView{At: rep.At.UTC().Format(time.RFC3339), Healthy: rep.Healthy(), Checks: rep.Checks, Findings: rep.Findings}
	return p
}

// WriteAuditHTML renders an audit run as one self-contained HTML document: the style inlined,
// the charts inline SVG, no script and nothing fetched.
func WriteAuditHTML(rep audit.Report, o ReportOptions) ([]byte, error) {
	var b bytes.Buffer
	if err := Render(&b, AuditPage(rep, o)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
