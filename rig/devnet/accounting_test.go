package devnet

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

// chainSpend is what the chain itself says the rig's keys paid: every transaction they sent
// after the rigs started, from the blocks and receipts, summed independently of the journals.
type chainSpend struct {
	fees     map[common.Hash]*big.Int
	reverted map[common.Hash]bool
	total    *big.Int
}

func spendOnChain(ctx context.Context, t *testing.T, d *Devnet, senders map[common.Address]bool, from uint64) chainSpend {
	t.Helper()
	client, err := d.Chain.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	head, err := client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(d.ChainID))
	s := chainSpend{fees: map[common.Hash]*big.Int{}, reverted: map[common.Hash]bool{}, total: new(big.Int)}
	for n := from + 1; n <= head; n++ {
		block, err := client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range block.Transactions() {
			sender, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			if !senders[sender] {
				continue
			}
			rec, err := client.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				t.Fatal(err)
			}
			fee := new(big.Int).Mul(new(big.Int).SetUint64(rec.GasUsed), rec.EffectiveGasPrice)
			s.fees[tx.Hash()] = fee
			s.reverted[tx.Hash()] = rec.Status != types.ReceiptStatusSuccessful
			s.total.Add(s.total, fee)
		}
	}
	return s
}

// balanceDrops is what each of the senders' balances lost in each block after from, read block
// by block from the chain's state (eth_getBalance at n-1 and at n): what the chain charged them,
// the L1 component of a rollup that charges one included, independent of any receipt. Only
// blocks where a balance moved are kept.
func balanceDrops(ctx context.Context, t *testing.T, d *Devnet, senders map[common.Address]bool, from uint64) map[common.Address]map[uint64]*big.Int {
	t.Helper()
	client, err := d.Chain.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	head, err := client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[common.Address]map[uint64]*big.Int{}
	for addr := range senders {
		out[addr] = map[uint64]*big.Int{}
		prev, err := client.BalanceAt(ctx, addr, new(big.Int).SetUint64(from))
		if err != nil {
			t.Fatal(err)
		}
		for n := from + 1; n <= head; n++ {
			now, err := client.BalanceAt(ctx, addr, new(big.Int).SetUint64(n))
			if err != nil {
				t.Fatal(err)
			}
			if drop := new(big.Int).Sub(prev, now); drop.Sign() != 0 {
				out[addr][n] = drop
			}
			prev = now
		}
	}
	return out
}

// journalSpend reads every process's journal: the transactions and the ledger.
func journalSpend(ctx context.Context, t *testing.T, d *Devnet) (map[common.Hash]journal.TxRecord, []journal.Ledger) {
	t.Helper()
	txs := map[common.Hash]journal.TxRecord{}
	var ledgers []journal.Ledger
	for i, j := range d.journals {
		db, ok := j.(*journal.DBJournal)
		if !ok {
			t.Fatalf("process %d: journal %T keeps no accounts", i+1, j)
		}
		list, err := db.Txs(ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range list {
			if _, dup := txs[tx.Hash]; dup {
				t.Errorf("transaction %s journaled by two processes", tx.Hash.Hex())
			}
			txs[tx.Hash] = tx
		}
		l, err := db.Ledger(ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		ledgers = append(ledgers, l)
	}
	return txs, ledgers
}

// runAccounted orders one task per symbol on a devnet and waits until every task is settled,
// every rig's journal entry is final and the journals hold exactly the transactions the rigs'
// keys sent (the last settle's receipt reaches its journal a poll after the chain shows it).
func runAccounted(ctx context.Context, t *testing.T, o Options) (*Devnet, map[common.Address]bool, uint64) {
	t.Helper()
	o.Spec = []byte(testSpec)
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	d, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	senders := map[common.Address]bool{}
	for _, cfg := range d.configs {
		for _, k := range cfg.Operators {
			senders[k.Address] = true
		}
		if cfg.Relayer != nil {
			senders[cfg.Relayer.Address] = true
		}
	}
	start := d.configs[0].FromBlock
	minute := DefaultMinute(time.Now(), []market.Session{market.Pre, market.Regular, market.Post})
	ids, err := d.Order(ctx, []string{"NVDA", "TSLA", "SPY"}, minute)
	if err != nil {
		t.Fatal(err)
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reports {
		if rep.Phase != agentrig.PhaseSettled || !rep.Agreed {
			t.Fatalf("task %d: %+v", rep.TaskID, rep)
		}
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		final := true
		for _, j := range d.journals {
			open, err := j.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			final = final && len(open) == 0
		}
		if final {
			onChain := spendOnChain(ctx, t, d, senders, start)
			journaled, _ := journalSpend(ctx, t, d)
			if len(journaled) == len(onChain.fees) {
				return d, senders, start
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the journals never caught up with the chain: %v", ctx.Err())
		case <-tick.C:
		}
	}
}

// The accounting equals the chain to the wei: every transaction the rigs' keys sent is
// journaled, with the outcome its receipt shows; what the journals say each key paid in each
// block is what that key's balance lost in that block (the chain's state, not the receipts the
// journal's fees were computed from: an L1 component a rollup charges on top would show there);
// the ledgers' totals are the sum of those losses; and the credits each rig earned are the
// contract's own credits of its operator. The devnet charges Robinhood Chain's L1 part (l1fee.go)
// as Nitro does, inside gasUsed: every journaled transaction records its gasUsedForL1.
func TestAccountingEqualsTheChainToTheWei(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx := testContext(t)
	// The relayed process's operator pays its relayer a 10 % operator fee: the relayer's cut
	// is the rig's earning too.
	d, senders, start := runAccounted(ctx, t, Options{RelayerFeeBps: 1000})

	onChain := spendOnChain(ctx, t, d, senders, start)
	journaled, ledgers := journalSpend(ctx, t, d)
	if len(onChain.fees) == 0 {
		t.Fatal("the rigs sent no transaction")
	}
	for hash := range onChain.fees {
		tx, ok := journaled[hash]
		switch {
		case !ok:
			t.Errorf("transaction %s is not journaled", hash.Hex())
		case (tx.Status == journal.TxReverted) != onChain.reverted[hash]:
			t.Errorf("transaction %s (%s): journal says %s, chain says reverted=%v", hash.Hex(), tx.Purpose, tx.Status, onChain.reverted[hash])
		}
		if ok && (tx.L1GasUsed == 0 || tx.L1GasUsed >= tx.GasUsed) {
			t.Errorf("transaction %s (%s): %d of its %d gas journaled as its L1 part, want some and less than all", hash.Hex(), tx.Purpose, tx.L1GasUsed, tx.GasUsed)
		}
		if ok {
			shares := new(big.Int)
			for _, e := range tx.Entries {
				shares.Add(shares, e.Share)
			}
			if shares.Cmp(tx.Fee) != 0 {
				t.Errorf("transaction %s: shares add up to %s, fee %s", hash.Hex(), shares, tx.Fee)
			}
		}
	}
	// Block by block, each key: the journal's fees against the balance it lost.
	drops := balanceDrops(ctx, t, d, senders, start)
	paid := map[common.Address]map[uint64]*big.Int{}
	for _, tx := range journaled {
		if paid[tx.From] == nil {
			paid[tx.From] = map[uint64]*big.Int{}
		}
		if paid[tx.From][tx.Block] == nil {
			paid[tx.From][tx.Block] = new(big.Int)
		}
		paid[tx.From][tx.Block].Add(paid[tx.From][tx.Block], tx.Fee)
	}
	lost := new(big.Int)
	for addr := range senders {
		for n, drop := range drops[addr] {
			lost.Add(lost, drop)
			if got := paid[addr][n]; got == nil || got.Cmp(drop) != 0 {
				t.Errorf("%s lost %s wei in block %d; its journaled transactions there cost %v wei", addr.Hex(), drop, n, got)
			}
		}
		for n, fee := range paid[addr] {
			if _, ok := drops[addr][n]; !ok && fee.Sign() != 0 {
				t.Errorf("%s: the journal charges %s wei in block %d, where its balance did not move", addr.Hex(), fee, n)
			}
		}
	}
	for addr := range paid {
		if !senders[addr] {
			t.Errorf("the journal charges %s, which is none of the rigs' keys", addr.Hex())
		}
	}
	total, perTask := new(big.Int), new(big.Int)
	purposes := map[string]int{}
	var lowPrice, highPrice *big.Int
	var gasUnits, l1Units uint64
	gasOf := map[string]uint64{}
	for _, tx := range journaled {
		purposes[tx.Purpose]++
		gasOf[tx.Purpose] += tx.GasUsed
		gasUnits += tx.GasUsed
		l1Units += tx.L1GasUsed
		if lowPrice == nil || tx.EffectiveGasPrice.Cmp(lowPrice) < 0 {
			lowPrice = tx.EffectiveGasPrice
		}
		if highPrice == nil || tx.EffectiveGasPrice.Cmp(highPrice) > 0 {
			highPrice = tx.EffectiveGasPrice
		}
	}
	for _, l := range ledgers {
		total.Add(total, l.Total.GasPaid)
		for _, tm := range l.Tasks {
			perTask.Add(perTask, tm.GasPaid)
		}
	}
	if total.Cmp(lost) != 0 || perTask.Cmp(lost) != 0 {
		t.Errorf("gas paid: ledgers %s wei (per task %s), the keys' balances lost %s wei", total, perTask, lost)
	}
	// A direct process sends a commit (reveal) alone, or several tasks' in one commitMany
	// (revealMany) when that costs less gas (rig/batch.go): which one depends on how many tasks
	// were ready together.
	for _, want := range [][]string{{"draw"}, {"settle"}, {"commit", "commitMany"}, {"reveal", "revealMany"}} {
		if purposes[want[0]]+purposes[want[len(want)-1]] == 0 {
			t.Errorf("no %s journaled: %v", strings.Join(want, " or "), purposes)
		}
	}

	// Credits: each rig's earnings in its journal are what the contract credited its operator
	// (nobody withdrew, and the operator owns the rig, so its staker shares land there too),
	// and for the relayed rig what it credited the relayer besides (the relayer is paid by no
	// other rig).
	contract := agentrig.NewContract(d.client, d.Contract)
	earned := new(big.Int)
	for i, r := range d.Runners {
		var relayerCredits *big.Int
		if rel := d.RelayerOf(i); rel != nil {
			c, err := contract.Credits(ctx, *rel)
			if err != nil {
				t.Fatal(err)
			}
			if c.Sign() == 0 {
				t.Errorf("process %d: the relayer earned no operator fee", i+1)
			}
			relayerCredits = c
		}
		for _, id := range r.RigIDs() {
			m, _ := ledgers[i].Rig(id)
			var op common.Address
			for _, k := range d.configs[i].Operators {
				if ids, err := contract.RigIDsOf(ctx, PriceJobID, []common.Address{k.Address}); err == nil && ids[k.Address] == id {
					op = k.Address
				}
			}
			credits, err := contract.Credits(ctx, op)
			if err != nil {
				t.Fatal(err)
			}
			if relayerCredits != nil {
				credits = new(big.Int).Add(credits, relayerCredits)
			}
			if m.Earned == nil || m.Earned.Cmp(credits) != 0 || credits.Sign() == 0 {
				t.Errorf("rig %d (operator %s): journal earned %v wei, contract credits %s wei", id, op.Hex(), m.Earned, credits)
			}
			earned.Add(earned, credits)
		}
	}
	var lines []string
	for _, l := range ledgers {
		lines = append(lines, fmt.Sprintf("gas %s earned %s margin %s txs %d reverted %d", l.Total.GasPaid, l.Total.Earned, l.Total.Margin(), l.Total.Txs, l.Total.Reverted))
	}
	t.Logf("%d transactions, %d gas (%d of it the L1 part) at %s..%s wei, %s wei lost by the keys' balances and paid in the journals; %s wei earned; per process: %v; purposes %v, gas by purpose %v",
		len(onChain.fees), gasUnits, l1Units, lowPrice, highPrice, lost, earned, lines, purposes, gasOf)
}
