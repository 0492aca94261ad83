package audit

import (
	"context"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/devnet"
	"github.com/pricerig/pricerig/sources"
)

// On a devnet whose gas costs more than a task pays (a genesis base fee of 1000 gwei: a commit
// alone costs more than the 0.000003 ETH a rig earns), the audit of each rig process's journal
// reports every rig `unprofitable`, with the margin its ledger holds, and the relayed process's
// journal as a whole too (its relayer paid the draws and settles).
func TestAuditFindsUnprofitableRigsOnADevnetWithDearGas(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec, err := os.ReadFile("../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := devnet.Start(ctx, devnet.Options{Spec: spec, BaseFee: big.NewInt(1_000_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ids, err := d.Order(ctx, []string{"NVDA", "TSLA", "SPY"}, devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Wait(ctx, ids); err != nil {
		t.Fatal(err)
	}
	for i, r := range d.Runners {
		j, err := rig.OpenJournal(d.JournalPath(i))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		// Wait on the real condition: every entry final and every payout journaled.
		for {
			open, err := j.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			l, err := j.Ledger(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			paid := true
			for _, id := range r.RigIDs() {
				m, ok := l.Rig(id)
				paid = paid && ok && m.Earned.Sign() > 0
			}
			if len(open) == 0 && paid {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("process %d: the journal never finished: %d open", i+1, len(open))
			case <-time.After(50 * time.Millisecond):
			}
		}
		a, err := New(Config{Spec: d.Spec, Deps: feeds.Deps{Deps: sources.Deps{}}, Since: 15 * time.Minute, Journal: j})
		if err != nil {
			t.Fatal(err)
		}
		rep := a.Run(ctx)
		if c, _ := rep.Check(CheckRigName); c.State != CheckFindings {
			t.Fatalf("process %d: rig check %+v", i+1, c)
		}
		l, err := j.Ledger(ctx, rep.Window.From)
		if err != nil {
			t.Fatal(err)
		}
		found := map[uint64]Finding{}
		for _, f := range rep.Findings {
			if f.Name == Unprofitable {
				found[f.RigID] = f
			}
		}
		for _, id := range r.RigIDs() {
			m, _ := l.Rig(id)
			f, ok := found[id]
			if !ok || m.Margin().Sign() >= 0 || f.Value != FormatETH(m.Margin()) || f.Count != len(ids) {
				t.Errorf("process %d rig %d: margin %s ETH (gas %s, earned %s), finding %+v", i+1, id, FormatETH(m.Margin()),
					FormatETH(m.GasPaid), FormatETH(m.Earned), f)
			}
			t.Logf("process %d rig %d: gas %s ETH, earned %s ETH, margin %s ETH", i+1, id, FormatETH(m.GasPaid), FormatETH(m.Earned), FormatETH(m.Margin()))
		}
		if d.RelayerOf(i) != nil {
			if f, ok := found[0]; !ok || f.Value != FormatETH(l.Total.Margin()) {
				t.Errorf("process %d (relayed): the journal's total margin %s ETH, finding %+v", i+1, FormatETH(l.Total.Margin()), f)
			}
		}
	}
}
