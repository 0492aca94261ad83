package rig

import (
	"context"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	rigtask "github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// batchRig is a simulated chain with one NUMERIC job of quorum 3, three rigs that all belong to
// one runner, and tasks drawn for all three, each rig's answer journaled and not yet committed.
type batchRig struct {
	t       *testing.T
	ctx     context.Context
	sim     *agentrig.Sim
	journal *journal.DBJournal
	cfg     Config
	r       *Runner
	tasks   []uint64
}

const (
	batchOrderer = 1
	batchRelayer = 5
)

func batchOperator(i int) int { return 2 + i } // sim accounts 2, 3, 4 operate rigs 1, 2, 3

func newBatchRig(t *testing.T, relayed bool, tasks int) *batchRig {
	t.Helper()
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	b := &batchRig{t: t, ctx: t.Context(), sim: sim}
	price := big.NewInt(1_000_000_000_000)
	b.send(0, nil, sim.ABI.PackPublishJob(uint8(numeric.Numeric), 3, price, price, 50, "spec"))
	for i := range 3 {
		b.send(batchOperator(i), new(big.Int).Mul(price, big.NewInt(10)), sim.ABI.PackRegisterRig(1, sim.Addr(batchOperator(i))))
	}
	for n := range tasks {
		uri, hash, err := rigtask.EncodeInput("SPY", time.Date(2026, 11, 27, 15, 30+n, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		b.send(batchOrderer, price, sim.ABI.PackOrder(1, hash, uri))
		b.tasks = append(b.tasks, uint64(n+1))
	}
	sim.Mine(1)
	for _, id := range b.tasks {
		b.send(batchOrderer, nil, sim.ABI.PackDraw(new(big.Int).SetUint64(id)))
	}
	if b.journal, err = journal.OpenJournal(filepath.Join(t.TempDir(), "journal.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.journal.Close() })
	b.cfg = Config{Contract: sim.Address, JobID: 1, Sender: txm.SenderConfig{Poll: 2 * time.Millisecond}}
	for i := range 3 {
		b.cfg.Operators = append(b.cfg.Operators, b.key(batchOperator(i)))
	}
	if relayed {
		k := b.key(batchRelayer)
		b.cfg.Relayer = &k
	}
	b.r = b.runner()
	for _, task := range b.tasks {
		for _, rigID := range b.r.RigIDs() {
			b.answer(task, rigID)
		}
	}
	return b
}

func (b *batchRig) key(i int) rigtask.Key {
	return rigtask.Key{Address: b.sim.Addr(i), Private: b.sim.Keys[i]}
}

func (b *batchRig) send(from int, value *big.Int, data []byte) *types.Receipt {
	b.t.Helper()
	rec, err := b.sim.Send(from, value, data)
	if err != nil {
		b.t.Fatal(err)
	}
	return rec
}

// runner starts a runner on the journal, as a (re)started process does.
func (b *batchRig) runner() *Runner {
	b.t.Helper()
	r, err := NewRunner(b.ctx, b.sim.Client, b.journal, nil, b.cfg)
	if err != nil {
		b.t.Fatal(err)
	}
	return r
}

// answer journals an answer and salt for one rig of one task, as pricing does.
func (b *batchRig) answer(task, rigID uint64) {
	b.t.Helper()
	price := numeric.Scaled(123_45000000)
	salt, err := rigtask.NewSalt()
	if err != nil {
		b.t.Fatal(err)
	}
	c, err := rigtask.Commitment(new(big.Int).SetUint64(task), rigID, price.Answer(), salt)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.journal.RecordAnswer(b.ctx, journal.Entry{TaskID: task, RigID: rigID, Symbol: "SPY", Price: price, Answer: price.Answer(), Salt: salt, Commitment: c}); err != nil {
		b.t.Fatal(err)
	}
}

func (b *batchRig) entry(task, rigID uint64) journal.Entry {
	b.t.Helper()
	e, ok, err := b.journal.Get(b.ctx, task, rigID)
	if err != nil || !ok {
		b.t.Fatalf("journal entry %d/%d: %v %v", task, rigID, ok, err)
	}
	return e
}

// commits are the journaled commits of every rig of every task, as a step queues them.
func (b *batchRig) commits() []answerTx {
	var out []answerTx
	for _, task := range b.tasks {
		for _, rigID := range b.r.RigIDs() {
			out = append(out, answerTx{kind: commits, entry: b.entry(task, rigID)})
		}
	}
	return out
}

// nonces is how many transactions the runner's keys have had mined.
func (b *batchRig) nonces() uint64 {
	var n uint64
	keys := append([]rigtask.Key{}, b.cfg.Operators...)
	if b.cfg.Relayer != nil {
		keys = append(keys, *b.cfg.Relayer)
	}
	for _, k := range keys {
		v, err := b.sim.Client.NonceAt(b.ctx, k.Address, nil)
		if err != nil {
			b.t.Fatal(err)
		}
		n += v
	}
	return n
}

// estimate is eth_estimateGas of data sent from account from, computed here independently of
// the runner.
func (b *batchRig) estimate(from common.Address, data []byte) uint64 {
	b.t.Helper()
	gas, err := b.sim.Client.EstimateGas(b.ctx, ethereum.CallMsg{From: from, To: &b.sim.Address, Data: data})
	if err != nil {
		b.t.Fatal(err)
	}
	return gas
}

// sign is an operator's EIP-712 signature of an entry, computed here independently.
func (b *batchRig) sign(kind *answerKind, e journal.Entry) []byte {
	b.t.Helper()
	d := rigtask.Domain{ChainID: b.sim.ChainID, Contract: b.sim.Address}
	var digest common.Hash
	var err error
	if kind == commits {
		digest, err = d.CommitDigest(new(big.Int).SetUint64(e.TaskID), e.Commitment)
	} else {
		digest, err = d.RevealDigest(new(big.Int).SetUint64(e.TaskID), e.Answer, e.Salt)
	}
	if err != nil {
		b.t.Fatal(err)
	}
	sig, err := crypto.Sign(digest[:], b.sim.Keys[batchOperator(int(e.RigID)-1)])
	if err != nil {
		b.t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

func (b *batchRig) commitMany(es []journal.Entry) []byte {
	entries := make([]agentrig.AgentRigCommit, len(es))
	sigs := make([][]byte, len(es))
	for i, e := range es {
		entries[i] = agentrig.AgentRigCommit{TaskId: new(big.Int).SetUint64(e.TaskID), Commitment: e.Commitment}
		sigs[i] = b.sign(commits, e)
	}
	return b.sim.ABI.PackCommitMany(entries, sigs)
}

// committedBatch runs the tasks until every rig committed, and returns rig 1's commit
// transaction on task 1 (a commitMany) and its receipt.
func (b *batchRig) committedBatch() (*types.Receipt, *types.Transaction) {
	b.t.Helper()
	b.step()
	b.mineUntil("commits", b.all(journal.StateCommitted))
	b.r.wg.Wait()
	hash := common.HexToHash(b.entry(1, 1).CommitTx)
	rec, err := b.sim.Client.TransactionReceipt(b.ctx, hash)
	if err != nil {
		b.t.Fatal(err)
	}
	tx, _, err := b.sim.Client.TransactionByHash(b.ctx, hash)
	if err != nil {
		b.t.Fatal(err)
	}
	return rec, tx
}

// forkOut reorgs rec's transaction out: back to its block's parent, the pool emptied, two
// blocks without it.
func (b *batchRig) forkOut(rec *types.Receipt) {
	b.t.Helper()
	parent, err := b.sim.Client.HeaderByNumber(b.ctx, new(big.Int).Sub(rec.BlockNumber, big.NewInt(1)))
	if err != nil {
		b.t.Fatal(err)
	}
	if err := b.sim.Backend.Fork(parent.Hash()); err != nil {
		b.t.Fatal(err)
	}
	b.sim.Backend.Rollback()
	b.sim.Mine(2)
	if _, err := b.sim.Client.TransactionReceipt(b.ctx, rec.TxHash); err == nil {
		b.t.Fatal("the transaction is still on the forked chain")
	}
}

// mineUntil seals blocks while the runner's transactions go out, until done holds.
func (b *batchRig) mineUntil(what string, done func() bool) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	for !done() {
		if ctx.Err() != nil {
			b.t.Fatalf("%s: still not done after a minute of blocks", what)
		}
		b.sim.Mine(1)
		time.Sleep(5 * time.Millisecond)
	}
}

func (b *batchRig) step() {
	b.t.Helper()
	if err := b.r.Step(b.ctx); err != nil {
		b.t.Fatal(err)
	}
}

func (b *batchRig) all(state journal.State) func() bool {
	return func() bool {
		for _, task := range b.tasks {
			for _, rigID := range b.r.RigIDs() {
				if b.entry(task, rigID).State != state {
					return false
				}
			}
		}
		return true
	}
}

// drain sends away all but dust of account i's ether, so it cannot pay for a transaction.
func (b *batchRig) drain(i int) {
	b.t.Helper()
	addr := b.sim.Addr(i)
	bal, err := b.sim.Client.BalanceAt(b.ctx, addr, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	head, err := b.sim.Head()
	if err != nil {
		b.t.Fatal(err)
	}
	nonce, err := b.sim.Client.PendingNonceAt(b.ctx, addr)
	if err != nil {
		b.t.Fatal(err)
	}
	tip, err := b.sim.Client.SuggestGasTipCap(b.ctx) // the least tip the sealer takes
	if err != nil {
		b.t.Fatal(err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	value := new(big.Int).Sub(bal, new(big.Int).Mul(feeCap, big.NewInt(21_000)))
	to := b.sim.Addr(0)
	tx, err := types.SignNewTx(b.sim.Keys[i], types.LatestSignerForChainID(b.sim.ChainID), &types.DynamicFeeTx{
		ChainID: b.sim.ChainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, To: &to, Value: value})
	if err != nil {
		b.t.Fatal(err)
	}
	if err := b.sim.Client.SendTransaction(b.ctx, tx); err != nil {
		b.t.Fatal(err)
	}
	b.sim.Mine(1)
	wait, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if rec, err := bind.WaitMined(wait, b.sim.Client, tx.Hash()); err != nil || rec.Status != types.ReceiptStatusSuccessful {
		b.t.Fatalf("draining account %d: %v", i, err)
	}
}
