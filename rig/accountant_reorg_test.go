package rig

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
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
	b.r.books.checkReorg(b.ctx, head()) // the runner's last look: the chain with the batch

	b.forkOut(rec)
	b.r.books.checkReorg(b.ctx, head())
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
	b.r.books.checkReorg(b.ctx, head())
	if l := agree("mined again"); l.Total.GasPaid.Sign() == 0 {
		t.Fatal("mined again, the transaction is not back in the journal")
	}
}

// moveTxJournalEnv names the journal a child process of TestAMovedTransactionSurvivesAKill
// works on, and tells it it is the child.
const moveTxJournalEnv = "PRICERIG_TEST_MOVE_TX_JOURNAL"

// A reorg that moves a journaled transaction to another block journals it again from its new
// receipt: the delete of the old record and the insert of the new one are one database
// transaction, so a process killed between the two (SIGKILL, from a hook between the steps)
// leaves the old record for the next start, which corrects it; it never loses the transaction.
func TestAMovedTransactionSurvivesAKill(t *testing.T) {
	if path := os.Getenv(moveTxJournalEnv); path != "" {
		moveTxAndDie(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "journal.db")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestAMovedTransactionSurvivesAKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), moveTxJournalEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed between the delete and the insert: %v\n%s", err, out)
	}
	j, err := journal.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	txs, err := j.TxsFromBlock(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(txs) != 1 || len(txs[0].Entries) != 2 || txs[0].Fee.Sign() == 0 {
		t.Fatalf("after a kill between the delete and the insert the journal holds %+v, want the transaction as journaled before", txs)
	}
	// Not killed, the move replaces the record, entries and all.
	moved := txs[0]
	moved.Block++
	if err := j.MoveTx(t.Context(), moved); err != nil {
		t.Fatal(err)
	}
	if txs, err = j.TxsFromBlock(t.Context(), 0); err != nil || len(txs) != 1 || txs[0].Block != moved.Block || len(txs[0].Entries) != 2 {
		t.Fatalf("after a move the journal holds %+v (%v), want one record at block %d", txs, err, moved.Block)
	}
}

// moveTxAndDie is the child: it journals a mined transaction as if mined one block earlier,
// then has the runner journal it again from its receipt, and is killed between the delete and
// the insert.
func moveTxAndDie(t *testing.T, path string) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	price := big.NewInt(1_000_000_000_000)
	rec, err := sim.Send(0, nil, sim.ABI.PackPublishJob(uint8(numeric.Numeric), 3, price, price, 50, "spec"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &accountant{backend: sim.Client, journal: j, log: slog.New(slog.DiscardHandler)}
	was := r.txRecord(t.Context(), "commit", sim.Addr(0), []journal.TaskRig{{TaskID: 1, RigID: 1}, {TaskID: 2, RigID: 1}}, rec)
	was.Block--
	if inserted, err := j.RecordTx(t.Context(), was); err != nil || !inserted {
		t.Fatalf("journaling: %v (inserted %v)", err, inserted)
	}
	journal.TestHookMoveTx = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	r.rejournal(t.Context(), j, was, rec)
	t.Fatal("the move of a transaction never reached the point between its delete and its insert")
}
