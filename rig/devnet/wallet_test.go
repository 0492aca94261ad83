package devnet

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/task"
)

// ethersNode finds node and the ethers package rig/contract pins (npm ci there installs it; so
// does scripts/check-contract). The test is skipped only when they are absent.
func ethersNode(t *testing.T) (nodeBin, modules string) {
	t.Helper()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	modules, err = filepath.Abs(filepath.Join("..", "contract", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "ethers", "package.json")); err != nil {
		t.Skip("rig/contract/node_modules/ethers is absent (run npm ci in rig/contract)")
	}
	return nodeBin, modules
}

// runEthers runs a script with ethers on node, its input as JSON on stdin, and decodes the JSON
// it prints.
func runEthers(t *testing.T, script string, in, out any) {
	t.Helper()
	nodeBin, modules := ethersNode(t)
	input, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodeBin, "-e", script)
	cmd.Env = append(os.Environ(), "ETHERS_MODULES="+modules)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("node's stderr:\n%s", stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("ethers printed %q: %v\n%s", res, err, stderr.String())
	}
}

// walletScript is what a developer's first minute with the devnet looks like: an ethers.js
// wallet sending transfers one after the other, each waiting for its receipt before the next
// (the nonce of the next comes from eth_getTransactionCount(address, "pending")).
const walletScript = `
const { ethers } = require(process.env.ETHERS_MODULES + '/ethers');
(async () => {
  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const provider = new ethers.JsonRpcProvider(input.rpc, undefined, { staticNetwork: true, pollingInterval: 50 });
  const wallet = new ethers.Wallet(input.key, provider);
  const out = { sent: 0, failures: [] };
  for (let i = 0; i < input.sends; i++) {
    try {
      const tx = await wallet.sendTransaction({ to: input.to, value: 1n });
      const receipt = await tx.wait();
      if (receipt.status !== 1) throw new Error('reverted');
      out.sent++;
    } catch (e) {
      out.failures.push(String(e.shortMessage || e.message));
    }
  }
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

// Thirty transfers from an ethers.js wallet, each sent once the previous one's receipt is in,
// all succeed, on an Ethereum-style chain and on a young and an old Nitro-style one. ethers.js
// shares identical requests made within 250 ms, so a receipt found sooner than that after the
// wallet's eth_getTransactionCount left the next transaction with the previous one's nonce
// ("nonce has already been used"): 3 to 9 of 30 went through on the devnet before its sequencer
// held every transaction MinBlockInterval.
func TestAnEthersWalletSendsThirtyTransfersInARow(t *testing.T) {
	for _, l1 := range []uint64{0, 21_000_000, 1} {
		t.Run(fmt.Sprint(l1), func(t *testing.T) { walletSends(t, l1) })
	}
}

func walletSends(t *testing.T, l1 uint64) {
	ethersNode(t)
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	// With a heartbeat, as `pricerig devnet` runs its chain today: a transaction sent long after
	// the last block must still wait.
	c, err := StartChainWithOptions(types.GenesisAlloc{from: {Balance: new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether))}},
		ChainOptions{L1Block: l1, Heartbeat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	to := from
	to[0] ^= 1
	var out struct {
		Sent     int
		Failures []string
	}
	runEthers(t, walletScript, map[string]any{"rpc": c.URL, "key": "0x" + hex.EncodeToString(crypto.FromECDSA(key)), "to": to.Hex(), "sends": 30}, &out)
	if out.Sent != 30 || len(out.Failures) != 0 {
		t.Fatalf("%d of 30 transfers went through; failures: %q", out.Sent, out.Failures)
	}
}

// orderScript orders one job-2 task through AgentRig's ABI with an ethers.js wallet and prints
// the order's receipt as the node gave it (ethers' own receipt object drops Nitro's fields).
const orderScript = `
const { ethers } = require(process.env.ETHERS_MODULES + '/ethers');
(async () => {
  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const provider = new ethers.JsonRpcProvider(input.rpc, undefined, { staticNetwork: true, pollingInterval: 50 });
  const wallet = new ethers.Wallet(input.key, provider);
  const agentRig = new ethers.Contract(input.contract, input.abi, wallet);
  const tx = await agentRig.order(input.job, ethers.id(input.uri), input.uri, { value: BigInt(input.price) });
  const receipt = await tx.wait();
  const raw = await provider.send('eth_getTransactionReceipt', [receipt.hash]);
  const ordered = receipt.logs.map((l) => agentRig.interface.parseLog(l)).find((e) => e && e.name === 'TaskOrdered');
  console.log(JSON.stringify({ receipt: raw, taskId: ordered.args.taskId.toString() }));
})().catch((e) => { console.error(e); process.exit(1); });
`

// The whole: on a young and an old Nitro-style devnet with its rigs, a task ordered by
// ethers.js is stored with the order's receipt's l1BlockNumber as its order block (AgentRig's
// block.number on Robinhood Chain), not the receipt's rollup block number, is drawn and settled
// in agreement by the devnet's rigs with no reverted transaction, and an ethers.js wallet then
// sends thirty transfers in a row.
func TestATaskOrderedByEthersIsStoredAtItsReceiptsL1BlockAndSettles(t *testing.T) {
	t.Parallel()
	bothChains(t, ethersOrders)
}

func ethersOrders(t *testing.T, l1 uint64) {
	ethersNode(t)
	// L1 at Ethereum's 12 s, not the tests' 1 s: every block moves chain time by a second at
	// least, so at one L1 block a second L1's numbers would never fall behind the rollup's.
	d, ctx := startDevnet(t, Options{FundedKeys: 2, L1Block: l1, L1Interval: DefaultL1Interval})
	if l1 == 1 { // the old chain: rollup blocks, empty, until their numbers are well past L1's
		for {
			head, err := d.client.HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if head.Number.Uint64() > d.Chain.L1.At(head.Time)+10 {
				break
			}
			if err := d.Chain.Do(func(s *Sequencer) error { s.Commit(); return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	start, err := d.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	minute := DefaultMinute(time.Now(), []market.Session{market.Pre, market.Regular, market.Post})
	inputs, err := agentrig.BuildInputs(task.SpecInputRules(d.Spec), []agentrig.OrderInput{{Symbol: "TSLA", Minute: minute}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	abiJSON, err := os.ReadFile(filepath.Join("..", "contract", "AgentRig.abi"))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Receipt map[string]json.RawMessage
		TaskID  string
	}
	runEthers(t, orderScript, map[string]any{"rpc": d.Chain.URL, "key": "0x" + hex.EncodeToString(crypto.FromECDSA(d.FundedKeys[0])),
		"contract": d.Contract.Hex(), "abi": json.RawMessage(abiJSON), "job": PriceJobID, "uri": inputs[0].URI,
		"price": launchJobs[PriceJobID-1].price.String()}, &out)
	id, ok := new(big.Int).SetString(out.TaskID, 10)
	if !ok {
		t.Fatalf("task id %q", out.TaskID)
	}
	info, err := d.contract.Task(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	receiptL1, block := quantityOf(t, out.Receipt["l1BlockNumber"]), quantityOf(t, out.Receipt["blockNumber"])
	if info.OrderBlock != receiptL1 || receiptL1 < l1 {
		t.Fatalf("task %s stored order block %d; its order's receipt says l1BlockNumber %d (rollup block %d)", id, info.OrderBlock, receiptL1, block)
	}
	if (l1 == 1) != (block > receiptL1) {
		t.Fatalf("rollup block %d against L1 block %d: want a young chain below L1's numbers, an old one above", block, receiptL1)
	}
	reports := waitSettled(ctx, t, d, []uint64{id.Uint64()})
	if !reports[0].Agreed || reports[0].Reveals != 3 {
		t.Fatalf("task %s: %+v", id, reports[0])
	}
	head, err := d.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := d.Mined(ctx, start, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if tx.Reverted {
			t.Errorf("reverted: %s of tasks %v in block %d", tx.Method, tx.Tasks, tx.Block)
		}
	}
	var sent struct {
		Sent     int
		Failures []string
	}
	to := crypto.PubkeyToAddress(d.FundedKeys[0].PublicKey)
	runEthers(t, walletScript, map[string]any{"rpc": d.Chain.URL, "key": "0x" + hex.EncodeToString(crypto.FromECDSA(d.FundedKeys[1])),
		"to": to.Hex(), "sends": 30}, &sent)
	if sent.Sent != 30 || len(sent.Failures) != 0 {
		t.Fatalf("%d of 30 transfers went through; failures: %q", sent.Sent, sent.Failures)
	}
}

// What a wallet does, over JSON-RPC without ethers.js: thirty times, the pending nonce, a
// transfer at it, its receipt, and at once the pending nonce again, which counts every
// transaction mined (the block that holds the last one included), on an Ethereum-style chain
// and on a young and an old Nitro-style one.
func TestThePendingNonceCountsEveryMinedTransaction(t *testing.T) {
	t.Parallel()
	transfers := 30
	if testing.Short() {
		transfers = 8 // each waits MinBlockInterval for its block; the full run sends all thirty
	}
	for _, l1 := range []uint64{0, 21_000_000, 1} {
		t.Run(fmt.Sprint(l1), func(t *testing.T) {
			t.Parallel()
			c, key, ctx, raw := nitroRPC(t, l1)
			from := crypto.PubkeyToAddress(key.PublicKey)
			for i := range transfers {
				receipt := transfer(ctx, t, c, raw, key)
				var pending hexutil.Uint64
				if err := raw.CallContext(ctx, &pending, "eth_getTransactionCount", from, "pending"); err != nil {
					t.Fatal(err)
				}
				if uint64(pending) != uint64(i+1) {
					t.Fatalf("after transfer %d (mined in block %s) the pending nonce is %d, want %d", i+1, receipt["blockNumber"], pending, i+1)
				}
			}
		})
	}
}
