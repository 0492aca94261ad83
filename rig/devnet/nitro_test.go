package devnet

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/txm"
)

// nitroChain starts a Nitro-style chain at L1 block l1 with one funded key.
func nitroChain(t *testing.T, l1 uint64) (*Chain, *ecdsa.PrivateKey) {
	t.Helper()
	key, _ := crypto.GenerateKey()
	c, err := StartChainWithOptions(types.GenesisAlloc{crypto.PubkeyToAddress(key.PublicKey): {Balance: big.NewInt(params.Ether)}},
		ChainOptions{L1Block: l1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, key
}

// nitroRPC is nitroChain with the test's context and a raw JSON-RPC client of the chain.
func nitroRPC(t *testing.T, l1 uint64) (*Chain, *ecdsa.PrivateKey, context.Context, *rpc.Client) {
	t.Helper()
	c, key := nitroChain(t, l1)
	ctx := testContext(t)
	raw, err := rpc.DialContext(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	return c, key, ctx, raw
}

// transfer sends 1 wei from key and returns its receipt's raw JSON once mined.
func transfer(ctx context.Context, t *testing.T, c *Chain, raw *rpc.Client, key *ecdsa.PrivateKey) map[string]json.RawMessage {
	t.Helper()
	client := ethclient.NewClient(raw)
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip, _ := client.SuggestGasTipCap(ctx)
	to := from
	to[0] ^= 1
	id := new(big.Int).SetUint64(c.ChainID)
	tx, _ := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var receipt map[string]json.RawMessage
	waitFor(ctx, t, "the transfer mined", func() bool {
		return raw.CallContext(ctx, &receipt, "eth_getTransactionReceipt", tx.Hash()) == nil && receipt != nil
	})
	return receipt
}

func quantityOf(t *testing.T, raw json.RawMessage) uint64 {
	t.Helper()
	var q hexutil.Uint64
	if err := json.Unmarshal(raw, &q); err != nil {
		t.Fatalf("%s is not a quantity: %v", raw, err)
	}
	return uint64(q)
}

func TestANitroChainNumbersItsBlocksInL1Blocks(t *testing.T) {
	for _, l1 := range []uint64{21_000_000, 1} {
		t.Run(fmt.Sprint(l1), func(t *testing.T) { testNitroNumbers(t, l1) })
	}
}

// A Nitro-style chain's blocks carry Nitro's fields: l1BlockNumber (the L1 clock's number at the
// block's time, packed into mixHash bytes 8-16 with the ArbOS version in 16-24), sendCount and
// sendRoot; its receipts l1BlockNumber and gasUsedForL1; its first transaction is the
// sequencer's startBlock; the hash a client recomputes from the block's JSON is the hash the node
// reports; and "pending" reads the latest block.
func testNitroNumbers(t *testing.T, start uint64) {
	c, key, ctx, raw := nitroRPC(t, start)
	// An hour and a half of L1 blocks later (the tests' stand-in for waiting), the next block is
	// sealed under an L1 number 450 past the start.
	if err := c.Do(func(s *Sequencer) error { return s.AdjustTime(90 * time.Minute) }); err != nil {
		t.Fatal(err)
	}
	receipt := transfer(ctx, t, c, raw, key)
	var block map[string]json.RawMessage
	if err := raw.CallContext(ctx, &block, "eth_getBlockByHash", receipt["blockHash"], true); err != nil {
		t.Fatal(err)
	}
	l1 := quantityOf(t, block["l1BlockNumber"])
	if want := c.L1.At(quantityOf(t, block["timestamp"])); l1 != want || l1 < start+450 {
		t.Fatalf("block l1BlockNumber %d, want %d (the L1 clock at its time, at least %d)", l1, want, start+450)
	}
	if got := quantityOf(t, receipt["l1BlockNumber"]); got != l1 {
		t.Fatalf("receipt l1BlockNumber %d, block's %d", got, l1)
	}
	receiptJSON, _ := json.Marshal(receipt)
	if part, err := txm.ParseReceiptL1(receiptJSON); err != nil || part.GasUsed != 0 || part.Fee == nil || part.Fee.Sign() != 0 || part.Extra {
		t.Fatalf("the receipt's L1 part reads %+v (%v): a chain started without an L1 price charges no L1 gas, and says so in Nitro's field", part, err)
	}
	var mix common.Hash
	_ = json.Unmarshal(block["mixHash"], &mix)
	if want := (NitroHeader{L1BlockNumber: l1, ArbOSVersion: ArbOSVersion}).MixHash(); mix != want {
		t.Fatalf("mixHash %s, want %s", mix, want)
	}
	if quantityOf(t, block["sendCount"]) != 0 || string(block["sendRoot"]) != `"`+(common.Hash{}).Hex()+`"` {
		t.Fatalf("sendCount %s sendRoot %s", block["sendCount"], block["sendRoot"])
	}
	var txs []struct {
		From common.Address  `json:"from"`
		To   *common.Address `json:"to"`
	}
	_ = json.Unmarshal(block["transactions"], &txs)
	if len(txs) != 2 || txs[0].From != crypto.PubkeyToAddress(sequencerKey().PublicKey) || *txs[0].To != ArbOSAddress {
		t.Fatalf("transactions %+v: want the sequencer's startBlock first, then the transfer", txs)
	}
	// The hash covers the JSON's fields as they are (difficulty 0 included).
	blockJSON, _ := json.Marshal(block)
	var header types.Header
	if err := json.Unmarshal(blockJSON, &header); err != nil {
		t.Fatal(err)
	}
	var hash common.Hash
	_ = json.Unmarshal(block["hash"], &hash)
	if header.Hash() != hash {
		t.Fatalf("the header recomputed from the JSON hashes to %s, the node says %s", header.Hash(), hash)
	}
	// DevnetArbOS, which the devnet build of AgentRig reads for block.number, says the same.
	client := ethclient.NewClient(raw)
	out, err := client.CallContract(ctx, ethereum.CallMsg{To: &ArbOSAddress, Data: NewDevnetArbOS().PackL1BlockNumber()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := NewDevnetArbOS().UnpackL1BlockNumber(out); n.Uint64() != l1 {
		t.Fatalf("DevnetArbOS.l1BlockNumber %s, the head's l1BlockNumber %d", n, l1)
	}
	testPendingIsLatest(ctx, t, raw, crypto.PubkeyToAddress(key.PublicKey))
}

// "pending" is "latest": the pending block is the head, the pending nonce the latest state's.
func testPendingIsLatest(ctx context.Context, t *testing.T, raw *rpc.Client, addr common.Address) {
	t.Helper()
	var pending, latest map[string]json.RawMessage
	if err := raw.CallContext(ctx, &pending, "eth_getBlockByNumber", "pending", false); err != nil {
		t.Fatal(err)
	}
	if err := raw.CallContext(ctx, &latest, "eth_getBlockByNumber", "latest", false); err != nil {
		t.Fatal(err)
	}
	if string(pending["hash"]) != string(latest["hash"]) || len(pending["l1BlockNumber"]) == 0 {
		t.Fatalf("pending block %s, latest %s", pending["hash"], latest["hash"])
	}
	var p, l hexutil.Uint64
	_ = raw.CallContext(ctx, &p, "eth_getTransactionCount", addr, "pending")
	_ = raw.CallContext(ctx, &l, "eth_getTransactionCount", addr, "latest")
	if p != l || p == 0 {
		t.Fatalf("pending nonce %d, latest %d", p, l)
	}
}

// A newHeads subscription over websockets carries Nitro's block fields too.
func TestNitroNewHeadsCarryTheL1BlockNumber(t *testing.T) {
	c, key := nitroChain(t, 21_000_000)
	ctx := testContext(t)
	ws, err := rpc.DialContext(ctx, c.WSURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	heads := make(chan map[string]json.RawMessage, 16)
	sub, err := ws.EthSubscribe(ctx, heads, "newHeads")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	receipt := transfer(ctx, t, c, ws, key)
	for {
		select {
		case h := <-heads:
			if string(h["hash"]) != string(receipt["blockHash"]) {
				continue
			}
			if got, want := quantityOf(t, h["l1BlockNumber"]), quantityOf(t, receipt["l1BlockNumber"]); got != want || got < 21_000_000 {
				t.Fatalf("newHeads l1BlockNumber %d, the receipt's %d", got, want)
			}
			return
		case err := <-sub.Err():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatal("no newHeads notification of the transfer's block")
		}
	}
}

// The devnet packs and reads Nitro's header fields as a recorded Arbitrum One block has them
// (rig/testdata/nitro/arbitrum-one-block-getblock.json, GetBlock's documentation): its mixHash
// unpacks to the block's l1BlockNumber, sendCount and ArbOS version, its extraData is its
// sendRoot; and a Nitro block's hash covers its difficulty of 1, which is why the devnet's JSON,
// whose blocks go-ethereum hashes with difficulty 0, says 0.
func TestNitroHeaderFieldsReadAsARecordedArbitrumBlock(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "nitro", "arbitrum-one-block-getblock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var block struct {
		MixHash       common.Hash    `json:"mixHash"`
		ExtraData     hexutil.Bytes  `json:"extraData"`
		L1BlockNumber hexutil.Uint64 `json:"l1BlockNumber"`
		SendCount     hexutil.Uint64 `json:"sendCount"`
		SendRoot      common.Hash    `json:"sendRoot"`
		Hash          common.Hash    `json:"hash"`
	}
	if err := json.Unmarshal(raw, &block); err != nil {
		t.Fatal(err)
	}
	info := nitroHeaderOf(block.MixHash, block.ExtraData)
	want := NitroHeader{SendRoot: block.SendRoot, SendCount: uint64(block.SendCount), L1BlockNumber: uint64(block.L1BlockNumber), ArbOSVersion: 10}
	if info != want || info.L1BlockNumber != 0x10924a4 {
		t.Fatalf("read %+v from the recorded header, want %+v", info, want)
	}
	if info.MixHash() != block.MixHash {
		t.Fatalf("packed %s, recorded %s", info.MixHash(), block.MixHash)
	}
	var header types.Header
	if err := json.Unmarshal(raw, &header); err != nil {
		t.Fatal(err)
	}
	if header.Difficulty.Int64() != 1 || header.Hash() != block.Hash {
		t.Fatalf("difficulty %s: the recorded header hashes to %s, recorded %s", header.Difficulty, header.Hash(), block.Hash)
	}
	header.Difficulty = big.NewInt(0)
	if header.Hash() == block.Hash {
		t.Fatal("the hash does not cover the difficulty")
	}
}

// A wallet or indexer that reads Arbitrum One's JSON reads the devnet's: its blocks and receipts
// carry every field of the recorded Arbitrum One block and receipt (rig/testdata/nitro), each of
// the same JSON kind (a hex string, a list, null), on a young and an old chain. totalDifficulty is
// the exception: the execution API's Block schema dropped it (ethereum/execution-apis PR 570) and
// the go-ethereum the devnet runs writes none.
func TestNitroJSONCarriesTheRecordedArbitrumFields(t *testing.T) {
	recorded := func(name string) map[string]json.RawMessage {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "nitro", name))
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	kind := func(v json.RawMessage) byte {
		if len(v) == 0 {
			return 0
		}
		if string(v) == "null" {
			return 'n'
		}
		return v[0]
	}
	same := func(what string, want, got map[string]json.RawMessage) {
		for k, v := range want {
			if k == "totalDifficulty" {
				continue
			}
			if g, ok := got[k]; !ok || kind(g) != kind(v) {
				t.Errorf("%s: field %s is %s, recorded as %s", what, k, g, v)
			}
		}
	}
	wantBlock, wantReceipt := recorded("arbitrum-one-block-getblock.json"), recorded("arbitrum-one-receipt-getblock.json")
	for _, l1 := range []uint64{21_000_000, 1} {
		t.Run(fmt.Sprint(l1), func(t *testing.T) {
			c, key, ctx, raw := nitroRPC(t, l1)
			receipt := transfer(ctx, t, c, raw, key)
			var block map[string]json.RawMessage
			if err := raw.CallContext(ctx, &block, "eth_getBlockByHash", receipt["blockHash"], false); err != nil {
				t.Fatal(err)
			}
			same("block", wantBlock, block)
			same("receipt", wantReceipt, receipt)
		})
	}
}
