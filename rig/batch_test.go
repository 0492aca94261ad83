package rig

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

// The runner sends its answers the way eth_estimateGas says costs less: one commit alone goes
// out as the rig's own transaction, six (three rigs, two tasks) as one commitMany — and the
// estimates it compared are exactly those of the two ways, computed here on the same chain.
func TestBatchingPicksTheCheaperPath(t *testing.T) {
	b := newBatchRig(t, false, 2)
	all := b.commits()
	one := all[:1]

	p := b.r.plan(b.ctx, one)
	e := one[0].entry
	op := b.sim.Addr(batchOperator(0))
	wantAlone := b.estimate(op, b.sim.ABI.PackCommit(big.NewInt(int64(e.TaskID)), e.Commitment))
	wantMany := b.estimate(op, b.commitMany([]journal.Entry{e}))
	if p.separate != wantAlone || p.batched != wantMany {
		t.Fatalf("one commit: plan estimated %d alone, %d batched; the chain says %d and %d", p.separate, p.batched, wantAlone, wantMany)
	}
	if p.batch() != (wantMany < wantAlone) || p.batch() {
		t.Fatalf("one commit: batch=%v with %d alone against %d batched", p.batch(), wantAlone, wantMany)
	}

	p = b.r.plan(b.ctx, all)
	var sum uint64
	var entries []journal.Entry
	for _, a := range all {
		e := a.entry
		sum += b.estimate(b.sim.Addr(batchOperator(int(e.RigID)-1)), b.sim.ABI.PackCommit(big.NewInt(int64(e.TaskID)), e.Commitment))
		entries = append(entries, e)
	}
	wantMany = b.estimate(op, b.commitMany(entries)) // rig 1's operator pays the batch
	if len(p.kept) != 6 || p.separate != sum || p.batched != wantMany {
		t.Fatalf("six commits: plan kept %d, estimated %d separately and %d batched; the chain says %d and %d", len(p.kept), p.separate, p.batched, sum, wantMany)
	}
	if !p.batch() || wantMany >= sum {
		t.Fatalf("six commits: batch=%v with %d separately against %d batched", p.batch(), sum, wantMany)
	}
	two := b.r.plan(b.ctx, all[:2])
	if !two.batch() {
		t.Fatalf("two commits sent one by one: %d separately against %d batched", two.separate, two.batched)
	}
	t.Logf("commit gas: one alone %d, one batched %d; two separately %d, batched %d; six separately %d, batched %d (%.0f%% saved)",
		wantAlone, b.estimate(op, b.commitMany([]journal.Entry{e})), two.separate, two.batched, sum, wantMany, 100-100*float64(wantMany)/float64(sum))
}

// Behind a relayer the comparison is the same, one one-entry commitMany each against one for
// all, both from the relayer.
func TestRelayedBatchingPicksTheCheaperPath(t *testing.T) {
	b := newBatchRig(t, true, 2)
	all := b.commits()
	relayer := b.sim.Addr(batchRelayer)
	p := b.r.plan(b.ctx, all)
	var sum uint64
	var entries []journal.Entry
	for _, a := range all {
		sum += b.estimate(relayer, b.commitMany([]journal.Entry{a.entry}))
		entries = append(entries, a.entry)
	}
	want := b.estimate(relayer, b.commitMany(entries))
	if p.separate != sum || p.batched != want || p.payer != b.r.relayer {
		t.Fatalf("plan estimated %d separately and %d batched (relayer pays: %v); the chain says %d and %d", p.separate, p.batched, p.payer == b.r.relayer, sum, want)
	}
	if !p.batch() {
		t.Fatalf("six relayed commits sent one by one: %d separately against %d batched", sum, want)
	}
}

// A runner without a relayer sends the commits of all its rigs for all ready tasks as one
// commitMany signed by its own operator keys, and later their reveals as one revealMany.
func TestBatchAcrossTasksAndRigsLandsInOneTransaction(t *testing.T) {
	b := newBatchRig(t, false, 3)
	before := b.nonces()
	b.step()
	b.mineUntil("commits", b.all(journal.StateCommitted))
	b.r.wg.Wait()
	if sent := b.nonces() - before; sent != 1 {
		t.Fatalf("9 commits (3 rigs × 3 tasks) took %d transactions, want 1", sent)
	}
	tx := b.entry(1, 1).CommitTx
	for _, task := range b.tasks {
		for _, rigID := range b.r.RigIDs() {
			if got := b.entry(task, rigID).CommitTx; got != tx || got == "" {
				t.Fatalf("task %d rig %d committed in %q, the others in %q", task, rigID, got, tx)
			}
		}
		info, err := b.r.deploy.Task(b.ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if info.Committed != 0b111 || info.Phase != agentrig.PhaseReveal {
			t.Fatalf("task %d on chain: committed mask %b, phase %s", task, info.Committed, info.Phase)
		}
	}
	b.step()
	b.mineUntil("reveals", b.all(journal.StateRevealed))
	b.r.wg.Wait()
	if sent := b.nonces() - before; sent != 2 {
		t.Fatalf("9 commits and 9 reveals took %d transactions, want 2", sent)
	}
	for _, task := range b.tasks {
		if p, err := b.r.chain.PhaseOf(b.ctx, task); err != nil || p != agentrig.PhaseSettle {
			t.Fatalf("task %d: phase %v (%v), want settle once every rig revealed", task, p, err)
		}
	}
}

// A restarted rig finds in its journal commits its killed predecessor already sent — one mined,
// one still pending — and leaves both out of its batch instead of sending it whole (where they
// would be skipped, or a direct commit would revert).
func TestRestartedRigDoesNotResendMinedEntries(t *testing.T) {
	b := newBatchRig(t, false, 2)
	// The predecessor's commits: task 1 rig 1 mined, task 1 rig 2 sent but not yet mined.
	mined := b.entry(1, 1)
	b.send(batchOperator(0), nil, b.sim.ABI.PackCommit(big.NewInt(1), mined.Commitment))
	pending := b.entry(1, 2)
	op := batchOperator(1)
	nonce, err := b.sim.Client.PendingNonceAt(b.ctx, b.sim.Addr(op))
	if err != nil {
		t.Fatal(err)
	}
	head, err := b.sim.Head()
	if err != nil {
		t.Fatal(err)
	}
	tip, err := b.sim.Client.SuggestGasTipCap(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(b.sim.Keys[op], types.LatestSignerForChainID(b.sim.ChainID), &types.DynamicFeeTx{
		ChainID: b.sim.ChainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas: 200_000, To: &b.sim.Address, Data: b.sim.ABI.PackCommit(big.NewInt(1), pending.Commitment)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.sim.Client.SendTransaction(b.ctx, tx); err != nil {
		t.Fatal(err)
	}
	// The node shows the pending commit in its pending state once it rebuilds its pending block
	// (geth caches it for a moment): wait for that, as a restart finds it.
	wait, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	for {
		_, err := b.sim.Client.PendingCallContract(wait, ethereum.CallMsg{From: b.sim.Addr(op), To: &b.sim.Address, Data: tx.Data()})
		if err != nil && agentrig.RevertReason(err) == "AlreadyDone" {
			break
		}
		if wait.Err() != nil {
			t.Fatalf("the pending commit never shows in the pending state: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}

	b.r = b.runner() // the restarted process, on the same journal
	p := b.r.plan(b.ctx, b.commits())
	if len(p.kept) != 4 {
		t.Fatalf("the restarted rig plans %d commits, want the 4 its predecessor did not send", len(p.kept))
	}
	for _, a := range p.kept {
		if a.entry.TaskID == 1 && a.entry.RigID <= 2 {
			t.Fatalf("task 1 rig %d is planned again though its commit is on its way", a.entry.RigID)
		}
	}

	before := b.nonces()
	b.step()
	b.mineUntil("commits", func() bool {
		for _, a := range p.kept {
			if b.entry(a.entry.TaskID, a.entry.RigID).State != journal.StateCommitted {
				return false
			}
		}
		return true
	})
	b.r.wg.Wait()
	// mined since the restart: the predecessor's pending commit and the runner's one batch
	if sent := b.nonces() - before; sent != 2 {
		t.Fatalf("mined since the restart: %d transactions, want the predecessor's pending commit and one commitMany", sent)
	}
	if info, err := b.r.deploy.Task(b.ctx, 1); err != nil || info.Committed != 0b111 {
		t.Fatalf("task 1 on chain: committed mask %b (%v), want all three", info.Committed, err)
	}
	batch := b.entry(2, 1).CommitTx
	rec, err := b.sim.Client.TransactionReceipt(b.ctx, common.HexToHash(batch))
	if err != nil {
		t.Fatal(err)
	}
	if skipped := b.r.deploy.Skipped(rec); rec.Status != types.ReceiptStatusSuccessful || len(skipped) != 0 {
		t.Fatalf("the batch: status %d, %d entries skipped", rec.Status, len(skipped))
	}
	for _, rigID := range []uint64{1, 2} {
		if got := b.entry(1, rigID).CommitTx; got == batch {
			t.Fatalf("task 1 rig %d was sent again in the batch", rigID)
		}
	}
}

// The operator of the lowest rig id pays a direct batch; when its key holds no gas, the next
// operator of the batch pays it instead, and the batch (rig 1's signed entries too) lands.
func TestDirectBatchPayerWithoutFundsDoesNotBlockTheOthers(t *testing.T) {
	b := newBatchRig(t, false, 2)
	b.drain(batchOperator(0))
	poor, err := b.sim.Client.BalanceAt(b.ctx, b.sim.Addr(batchOperator(0)), nil)
	if err != nil {
		t.Fatal(err)
	}
	all := b.commits()
	p := b.r.plan(b.ctx, all)
	if !p.batch() || p.payer.Address() != b.sim.Addr(batchOperator(0)) {
		t.Fatalf("plan: batch=%v, payer %s; want a batch planned on rig 1's operator", p.batch(), p.payer.Address())
	}
	if cost := new(big.Int).Mul(new(big.Int).SetUint64(p.batched), big.NewInt(1_000_000_000)); poor.Cmp(cost) >= 0 {
		t.Fatalf("rig 1's operator still holds %s wei, enough for the batch at 1 gwei (%s)", poor, cost)
	}
	nonces := func(i int) uint64 {
		n, err := b.sim.Client.NonceAt(b.ctx, b.sim.Addr(batchOperator(i)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := []uint64{nonces(0), nonces(1), nonces(2)}
	b.step()
	b.mineUntil("commits", b.all(journal.StateCommitted))
	b.r.wg.Wait()
	sent := []uint64{nonces(0) - before[0], nonces(1) - before[1], nonces(2) - before[2]}
	if sent[0] != 0 || sent[1] != 1 || sent[2] != 0 {
		t.Fatalf("transactions mined per operator: %v; want one batch from rig 2's operator", sent)
	}
	tx := b.entry(1, 1).CommitTx
	rec, err := b.sim.Client.TransactionReceipt(b.ctx, common.HexToHash(tx))
	if err != nil {
		t.Fatal(err)
	}
	if skipped := b.r.deploy.Skipped(rec); rec.Status != types.ReceiptStatusSuccessful || len(skipped) != 0 {
		t.Fatalf("the batch: status %d, %d entries skipped", rec.Status, len(skipped))
	}
	for _, task := range b.tasks {
		info, err := b.r.deploy.Task(b.ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if info.Committed != 0b111 {
			t.Fatalf("task %d on chain: committed mask %b, want all three rigs", task, info.Committed)
		}
		for _, rigID := range b.r.RigIDs() {
			if got := b.entry(task, rigID).CommitTx; got != tx {
				t.Fatalf("task %d rig %d committed in %q, want the batch %s", task, rigID, got, tx)
			}
		}
	}
}

// A reorg takes a journaled commitMany out of the chain: the next step takes it out of the
// accounts. Sent again, it is mined in a later block at another base fee, and the accounts take
// it back from that receipt, to the wei.
func TestReorgedOutTransactionLeavesTheAccounts(t *testing.T) {
	b := newBatchRig(t, false, 2)
	rec, tx := b.committedBatch()
	hash := tx.Hash()
	journaled := func() []journal.TxRecord {
		txs, err := b.journal.TxsFromBlock(b.ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		return txs
	}
	if txs := journaled(); len(txs) != 1 || txs[0].Hash != hash || txs[0].Block != rec.BlockNumber.Uint64() {
		t.Fatalf("journaled before the reorg: %+v, want the commitMany of block %d", txs, rec.BlockNumber)
	}
	head := func() *types.Header {
		h, err := b.sim.Head()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	b.r.books.CheckReorg(b.ctx, head()) // the runner's last look: the chain with the batch

	b.forkOut(rec)
	b.r.books.CheckReorg(b.ctx, head())
	if txs := journaled(); len(txs) != 0 {
		t.Fatalf("after the reorg the accounts still hold %+v", txs)
	}
	l, err := b.journal.Ledger(b.ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Total.Txs != 0 || l.Total.GasPaid.Sign() != 0 {
		t.Fatalf("ledger after the reorg: %d transactions, %s wei of gas", l.Total.Txs, l.Total.GasPaid)
	}

	// The same signed transaction, mined again later.
	if err := b.sim.Client.SendTransaction(b.ctx, tx); err != nil {
		t.Fatal(err)
	}
	b.sim.Mine(1)
	wait, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	again, err := bind.WaitMined(wait, b.sim.Client, hash)
	if err != nil {
		t.Fatal(err)
	}
	b.r.books.CheckReorg(b.ctx, head())
	txs := journaled()
	if len(txs) != 1 || txs[0].Block != again.BlockNumber.Uint64() || txs[0].Block == rec.BlockNumber.Uint64() {
		t.Fatalf("after it was mined again in block %d: journaled %+v", again.BlockNumber, txs)
	}
	fee := new(big.Int).Mul(new(big.Int).SetUint64(again.GasUsed), again.EffectiveGasPrice)
	shares := new(big.Int)
	for _, e := range txs[0].Entries {
		shares.Add(shares, e.Share)
	}
	if txs[0].Fee.Cmp(fee) != 0 || shares.Cmp(fee) != 0 || len(txs[0].Entries) != 6 {
		t.Fatalf("journaled fee %s (shares %s over %d entries), the new receipt's %s", txs[0].Fee, shares, len(txs[0].Entries), fee)
	}
	if old := new(big.Int).Mul(new(big.Int).SetUint64(rec.GasUsed), rec.EffectiveGasPrice); old.Cmp(fee) == 0 {
		t.Logf("the fee did not change with the base fee (%s wei): the block moved all the same", fee)
	}
}
