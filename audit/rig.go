package audit

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/journal"
)

// CheckRig reads the rig journal's entries: tasks settled outside an agreed task's agreement
// (slashed), without agreement, or inside it but farther from the stored median than
// NearMissPercent of the tolerance; windows missed; tasks skipped; and commits or reveals still
// not mined within PendingMargin of their deadline. Final entries count only when they were
// updated at or after from; open ones always count, since they can still cost a slash.
func CheckRig(entries []journal.Entry, now, from time.Time, toleranceBps uint32, th Thresholds) []Finding {
	entries = dedupe(entries)
	nearMiss := int64(toleranceBps) * 100 * int64(th.NearMissPercent) / 100
	limit := feeds.FormatCentiBps(nearMiss)
	var out []Finding
	for _, e := range entries {
		f := Finding{Check: CheckRigName, TaskID: e.TaskID, RigID: e.RigID, Symbol: e.Symbol, First: e.Minute, Last: e.Minute}
		what := fmt.Sprintf("task %d, rig %d (%s at %s)", e.TaskID, e.RigID, orDash(e.Symbol), minuteText(e.Minute))
		if e.State.Final() && e.UpdatedAt.Before(from) {
			continue
		}
		switch e.State {
		case journal.StateSettled:
			dist := e.RealizedCentiBps
			stored := numeric.FormatScaled(numeric.AnswerInt(e.StoredAnswer))
			switch {
			case e.Agreed && !e.Inside:
				f.Name, f.Severity, f.Value, f.Limit = Slashed, Alert, distText(dist), feeds.FormatCentiBps(int64(toleranceBps)*100)
				f.Message = fmt.Sprintf("%s: slashed: our %s was %s bps from the stored median %s, outside the %d bps tolerance", what, e.Price, distText(dist), stored, toleranceBps)
				out = append(out, f)
				continue
			case !e.Agreed:
				g := f
				g.Name, g.Severity = NotAgreed, Warn
				g.Message = fmt.Sprintf("%s: the task settled without agreement (stored median %s, ours %s, %s bps away): nobody was paid", what, stored, e.Price, distText(dist))
				out = append(out, g)
			}
			if dist >= 0 && dist > nearMiss {
				f.Name, f.Severity, f.Value, f.Limit = NearMiss, Warn, feeds.FormatCentiBps(dist), limit
				f.Message = fmt.Sprintf("%s: our %s was %s bps from the stored median %s, past %d%% of the %d bps tolerance (%s bps)",
					what, e.Price, feeds.FormatCentiBps(dist), stored, th.NearMissPercent, toleranceBps, limit)
				out = append(out, f)
			}
		case journal.StateMissed:
			f.Name, f.Severity = MissedWindow, Alert
			f.Message = fmt.Sprintf("%s: missed a window and lost the slash: %s", what, orDash(e.Reason))
			out = append(out, f)
		case journal.StateSkipped:
			f.Name, f.Severity = TaskSkipped, Alert
			f.Message = fmt.Sprintf("%s: not answered (it will miss the commit window): %s", what, orDash(e.Reason))
			out = append(out, f)
		case journal.StateDrawn, journal.StateAnswered:
			if p, ok := pending(f, what, "commit", e.CommitDeadline, now, th.PendingMargin); ok {
				p.Name = CommitPending
				out = append(out, p)
			}
		case journal.StateCommitted:
			if p, ok := pending(f, what, "reveal", e.RevealDeadline, now, th.PendingMargin); ok {
				p.Name = RevealPending
				out = append(out, p)
			}
		}
	}
	return out
}

// pending reports a transaction not yet mined close to (or past) its deadline.
func pending(f Finding, what, step string, deadline, now time.Time, margin time.Duration) (Finding, bool) {
	if deadline.IsZero() {
		return f, false
	}
	left := deadline.Sub(now)
	if left > margin {
		return f, false
	}
	f.Severity, f.Value, f.Limit = Alert, left.Round(time.Second).String(), margin.String()
	if left <= 0 {
		f.Message = fmt.Sprintf("%s: the %s window closed %s ago (%s) and the journal has no %s mined", what, step, (-left).Round(time.Second), deadline.UTC().Format(time.RFC3339), step)
	} else {
		f.Message = fmt.Sprintf("%s: the %s is not mined and its window closes in %s (%s)", what, step, left.Round(time.Second), deadline.UTC().Format(time.RFC3339))
	}
	return f, true
}

// dedupe keeps one entry per task and rig (Since and Open overlap), the latest updated.
func dedupe(entries []journal.Entry) []journal.Entry {
	type key struct{ task, rig uint64 }
	seen := map[key]int{}
	var out []journal.Entry
	for _, e := range entries {
		k := key{e.TaskID, e.RigID}
		if i, ok := seen[k]; ok {
			if e.UpdatedAt.After(out[i].UpdatedAt) {
				out[i] = e
			}
			continue
		}
		seen[k] = len(out)
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].TaskID != out[j].TaskID {
			return out[i].TaskID < out[j].TaskID
		}
		return out[i].RigID < out[j].RigID
	})
	return out
}

func distText(c int64) string {
	if c < 0 {
		return "?"
	}
	return feeds.FormatCentiBps(c)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func minuteText(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format(time.RFC3339)
}

// Balance is one address's balance in wei.
type Balance struct {
	Address common.Address
	Wei     *big.Int
}

// DefaultMinBalance is the default --min-balance: a relayer pays every commit and reveal of its
// rigs, a few hundred thousand gas each; 0.001 ETH is weeks of that on an Arbitrum chain.
const DefaultMinBalance = "0.001"

// ParseETH reads an amount of ether as decimal text ("0.001") into wei, exactly; more than 18
// decimals or a negative amount is an error.
func ParseETH(text string) (*big.Int, error) {
	text = strings.TrimSpace(text)
	d, err := decimal.NewFromString(text)
	if err != nil || len(text) > 64 {
		return nil, fmt.Errorf("%q is not an amount of ETH", text)
	}
	// an exponent like 1e999999999 would make a number of a billion digits
	if e := d.Exponent(); e > 30 || e < -60 {
		return nil, fmt.Errorf("%q: out of range", text)
	}
	if d.IsNegative() {
		return nil, fmt.Errorf("%q: an amount of ETH cannot be negative", text)
	}
	wei := d.Shift(18)
	if !wei.Equal(wei.Truncate(0)) {
		return nil, fmt.Errorf("%q: more decimals than wei (18)", text)
	}
	return wei.BigInt(), nil
}

// FormatETH prints wei as ether, exactly, without trailing zeros.
func FormatETH(wei *big.Int) string {
	return decimal.NewFromBigInt(wei, 0).Shift(-18).String()
}

// CheckBalances reports the addresses holding less than min wei.
func CheckBalances(balances []Balance, min *big.Int) []Finding {
	var out []Finding
	for _, b := range balances {
		if b.Wei == nil || b.Wei.Cmp(min) >= 0 {
			continue
		}
		sev := Warn
		if b.Wei.Sign() == 0 {
			sev = Alert
		}
		out = append(out, Finding{
			Check: CheckBalancesName, Name: LowBalance, Severity: sev, Address: b.Address.Hex(),
			Value: FormatETH(b.Wei), Limit: FormatETH(min),
			Message: fmt.Sprintf("%s holds %s ETH, less than the %s ETH minimum: its commits and reveals may stop", b.Address.Hex(), FormatETH(b.Wei), FormatETH(min)),
		})
	}
	return out
}
