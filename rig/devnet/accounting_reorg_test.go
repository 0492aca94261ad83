package devnet

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

// accountsOff lists where the journals and the metrics differ from the chain: every transaction
// the rigs' keys got mined since block start journaled at its receipt's fee and status, nothing
// else journaled, each rig's earnings what the contract credits its operator (and, relayed, its
// relayer), and each process's /metrics accounts (each counter less its reorged correction) its
// ledger's, rig by rig.
func accountsOff(ctx context.Context, t *testing.T, d *Devnet, senders map[common.Address]bool, start uint64, metrics []*rig.Metrics) []string {
	t.Helper()
	var off []string
	onChain := spendOnChain(ctx, t, d, senders, start)
	journaled, ledgers := journalSpend(ctx, t, d)
	for hash, fee := range onChain.fees {
		if tx, ok := journaled[hash]; !ok || tx.Fee.Cmp(fee) != 0 || (tx.Status == journal.TxReverted) != onChain.reverted[hash] {
			off = append(off, fmt.Sprintf("mined %s (fee %s, reverted %v): journaled %v", hash.Hex(), fee, onChain.reverted[hash], ok))
		}
	}
	for hash, tx := range journaled {
		if _, ok := onChain.fees[hash]; !ok {
			off = append(off, fmt.Sprintf("journaled %s (%s, block %d) is not on the chain", hash.Hex(), tx.Purpose, tx.Block))
		}
	}
	contract := agentrig.NewContract(d.client, d.Contract)
	credits := func(a common.Address) *big.Int {
		c, err := contract.Credits(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for i, r := range d.Runners {
		for _, id := range r.RigIDs() {
			want := new(big.Int)
			for _, k := range d.configs[i].Operators {
				if ids, err := contract.RigIDsOf(ctx, PriceJobID, []common.Address{k.Address}); err == nil && ids[k.Address] == id {
					want.Add(want, credits(k.Address))
				}
			}
			if rel := d.RelayerOf(i); rel != nil {
				want.Add(want, credits(*rel))
			}
			m, _ := ledgers[i].Rig(id)
			if m.Earned == nil || m.Earned.Cmp(want) != 0 {
				off = append(off, fmt.Sprintf("process %d rig %d: journal earned %v wei, contract credits %s wei", i+1, id, m.Earned, want))
			}
		}
		m := metrics[i]
		for _, rm := range ledgers[i].Rigs {
			label := journal.RigLabel(rm.RigID)
			for _, c := range []struct {
				name             string
				counter, reorged *prometheus.CounterVec
				journal          *big.Int
			}{
				{"gas paid", m.GasPaidWei, m.ReorgedGasPaidWei, rm.GasPaid},
				{"earned", m.EarnedWei, m.ReorgedEarnedWei, rm.Earned},
				{"slashed", m.SlashedWei, m.ReorgedSlashedWei, rm.Slashed},
			} {
				got := testutil.ToFloat64(c.counter.WithLabelValues(label)) - testutil.ToFloat64(c.reorged.WithLabelValues(label))
				if want, _ := new(big.Float).SetInt(c.journal).Float64(); got != want {
					off = append(off, fmt.Sprintf("process %d rig %s: %s %v on /metrics, journal %s wei", i+1, label, c.name, got, c.journal))
				}
			}
		}
	}
	return off
}

// waitAccounts waits until accountsOff finds nothing, and fails with what it found last; it
// stops waiting 20 s before ctx ends, so that last look still reads the chain.
func waitAccounts(ctx context.Context, t *testing.T, when string, d *Devnet, senders map[common.Address]bool, start uint64, metrics []*rig.Metrics) {
	t.Helper()
	wait := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wait, cancel = context.WithDeadline(ctx, dl.Add(-20*time.Second))
		defer cancel()
	}
	for {
		off := accountsOff(ctx, t, d, senders, start, metrics)
		if len(off) == 0 {
			return
		}
		select {
		case <-wait.Done():
			t.Fatalf("%s: the accounts never matched the chain: %v", when, off)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// A reorg that drops a settlement takes its payouts out of the journals and out of what /metrics
// says, and once the task is settled again (the settle mined again, or sent again) the accounts
// equal the chain to the wei: gas, earnings against the contract's credits, and the metrics.
func TestAccountingFollowsAReorgThatDropsASettle(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx := testContext(t)
	var mu sync.Mutex
	metrics := map[int]*rig.Metrics{}
	d, err := Start(ctx, Options{Instant: true, L1Interval: testL1Interval, Logger: testLogger(t), Spec: []byte(testSpec), RelayerFeeBps: 1000, Metrics: func(i int) *rig.Metrics {
		mu.Lock()
		defer mu.Unlock()
		metrics[i] = rig.NewMetrics(prometheus.NewRegistry())
		return metrics[i]
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	perProcess := make([]*rig.Metrics, len(d.Runners))
	for i := range perProcess {
		perProcess[i] = metrics[i]
	}
	senders := map[common.Address]bool{}
	for addr := range d.senders() {
		senders[addr] = true
	}
	start := d.configs[0].FromBlock
	ids, err := d.Order(ctx, []string{"NVDA", "TSLA", "SPY"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Wait(ctx, ids); err != nil {
		t.Fatal(err)
	}
	// Held from here, the chain stays within the runners' reorg depth of the last settlement.
	d.Chain.Pause()
	defer d.Chain.Resume()
	waitAccounts(ctx, t, "settled", d, senders, start, perProcess)

	// The last settlement's block goes: the chain forks at its parent, its transactions are
	// taken out of the pool, and no block is sealed until the journals have followed.
	settled := d.abi.GetABI().Events["Settled"].ID
	logs, err := d.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(start), Addresses: []common.Address{d.Contract},
		Topics: [][]common.Hash{{settled}}})
	if err != nil || len(logs) != len(ids) {
		t.Fatalf("Settled logs: %d, %v", len(logs), err)
	}
	last := logs[len(logs)-1]
	taskID := new(big.Int).SetBytes(last.Topics[1].Bytes())
	parent, err := d.client.HeaderByNumber(ctx, new(big.Int).SetUint64(last.BlockNumber-1))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Chain.Do(func(b *Sequencer) error {
		if err := b.Fork(parent.Hash()); err != nil {
			return err
		}
		b.Rollback()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	contract := agentrig.NewContract(d.client, d.Contract)
	if info, err := contract.Task(ctx, taskID); err != nil || agentrig.Phase(info.Phase) != agentrig.PhaseSettle {
		t.Fatalf("after the fork task %s is in phase %d (%v), want settle", taskID, info.Phase, err)
	}
	waitAccounts(ctx, t, "after the reorg", d, senders, start, perProcess)
	reorged := 0.0
	for i, m := range perProcess {
		for _, id := range append(d.Runners[i].RigIDs(), 0) {
			reorged += testutil.ToFloat64(m.ReorgedEarnedWei.WithLabelValues(journal.RigLabel(id)))
		}
	}
	if reorged == 0 {
		t.Fatal("the reorg took no earnings out of /metrics")
	}

	// Sealing again: the task is settled again, and the accounts hold it again.
	d.Chain.Resume()
	reports, err := d.Wait(ctx, []uint64{taskID.Uint64()})
	if err != nil || reports[0].Phase != agentrig.PhaseSettled || !reports[0].Agreed {
		t.Fatalf("after the reorg: %+v, %v", reports, err)
	}
	waitAccounts(ctx, t, "settled again", d, senders, start, perProcess)
	t.Logf("task %s's settlement in block %d was reorged out; %v wei of earnings left /metrics and came back", taskID, last.BlockNumber, reorged)
}
