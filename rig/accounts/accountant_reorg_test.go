package accounts

import (
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

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
// then has the accountant journal it again from its receipt, and is killed between the delete and
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
	r := New(Config{Backend: sim.Client, Journal: j})
	was := r.txRecord(t.Context(), "commit", sim.Addr(0), []journal.TaskRig{{TaskID: 1, RigID: 1}, {TaskID: 2, RigID: 1}}, rec)
	was.Block--
	if inserted, err := j.RecordTx(t.Context(), was); err != nil || !inserted {
		t.Fatalf("journaling: %v (inserted %v)", err, inserted)
	}
	journal.TestHookMoveTx = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	r.rejournal(t.Context(), j, was, rec)
	t.Fatal("the move of a transaction never reached the point between its delete and its insert")
}
