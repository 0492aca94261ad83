package rig

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pricerig/pricerig/rig/journal"
)

// The metrics follow a real reorg on the simulated chain: a commitMany counted in
// gas_paid_wei_total is taken out of the chain, so its shares are counted in
// reorged_gas_paid_wei_total and the difference is what the journal holds (nothing); mined again
// at another price, it is counted again from its new receipt, and the difference is the
// journal's ledger, rig by rig.
func TestReorgedMetricsCorrectTheAccounts(t *testing.T) {
	b := newBatchRig(t, false, 2)
	b.cfg.Metrics = NewMetrics(prometheus.NewRegistry())
	b.r = b.runner()
	m := b.cfg.Metrics
	head := func() *types.Header {
		h, err := b.sim.Head()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	rec, tx := b.committedBatch()
	hash := tx.Hash()
	// net is the accounts as an operator reads them from /metrics: each counter less its
	// reorged correction (both series exist from the first count on).
	net := func(rigID uint64) (paid, reorged float64) {
		label := journal.RigLabel(rigID)
		paid = testutil.ToFloat64(m.GasPaidWei.WithLabelValues(label))
		reorged = testutil.ToFloat64(m.ReorgedGasPaidWei.WithLabelValues(label))
		return paid - reorged, reorged
	}
	// agree holds the metrics to the journal's ledger for every rig, and returns the ledger.
	agree := func(when string) journal.Ledger {
		t.Helper()
		l, err := b.journal.Ledger(b.ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range b.r.RigIDs() {
			want := new(big.Int)
			if rm, ok := l.Rig(id); ok {
				want = rm.GasPaid
			}
			if got, reorged := net(id); got != weiFloat(want) {
				t.Errorf("%s: rig %d: gas paid %v on /metrics (less %v reorged), journal %s wei", when, id, got, reorged, want)
			}
		}
		return l
	}
	before := agree("before the reorg")
	if before.Total.GasPaid.Sign() == 0 || len(before.Rigs) != 3 {
		t.Fatalf("before the reorg: the ledger holds %s wei over %d rigs", before.Total.GasPaid, len(before.Rigs))
	}
	b.r.books.CheckReorg(b.ctx, head()) // the runner's last look: the chain with the batch

	b.forkOut(rec)
	b.r.books.CheckReorg(b.ctx, head())
	if l := agree("after the reorg"); l.Total.GasPaid.Sign() != 0 {
		t.Fatalf("after the reorg the journal still holds %s wei of gas", l.Total.GasPaid)
	}
	for _, id := range b.r.RigIDs() {
		rm, _ := before.Rig(id)
		if _, reorged := net(id); reorged != weiFloat(rm.GasPaid) {
			t.Errorf("rig %d: %v wei reorged out, its share was %s", id, reorged, rm.GasPaid)
		}
	}

	// The same signed transaction, mined again later.
	if err := b.sim.Client.SendTransaction(b.ctx, tx); err != nil {
		t.Fatal(err)
	}
	b.sim.Mine(1)
	wait, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if _, err := bind.WaitMined(wait, b.sim.Client, hash); err != nil {
		t.Fatal(err)
	}
	b.r.books.CheckReorg(b.ctx, head())
	if l := agree("mined again"); l.Total.GasPaid.Sign() == 0 {
		t.Fatal("mined again, the transaction is not back in the journal")
	}
}
