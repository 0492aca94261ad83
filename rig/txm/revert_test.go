package txm

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/internal/nodetest"
)

// revertingCode is a contract whose every call reverts with Error("no") — require(false, "no")
// — assembled by hand: CODECOPY the 100-byte payload after the 12 bytes of code into memory
// and REVERT with it. initCode deploys it.
func revertingCode() []byte {
	payload := append(hexutil.MustDecode("0x08c379a0"), common.LeftPadBytes([]byte{0x20}, 32)...)
	payload = append(payload, common.LeftPadBytes([]byte{2}, 32)...)
	payload = append(payload, common.RightPadBytes([]byte("no"), 32)...)
	runtime := append(hexutil.MustDecode("0x6064600c60003960646000fd"), payload...)
	init := []byte{0x60, byte(len(runtime)), 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, byte(len(runtime)), 0x60, 0x00, 0xf3}
	return append(init, runtime...)
}

// A call the chain reverts is told from the node's error by its JSON-RPC code and data, and its
// reason decoded (abi.UnpackRevert): go-ethereum's simulated chain, through its JSON-RPC client.
func TestARevertReasonIsDecodedFromTheNodesErrorData(t *testing.T) {
	ctx := context.Background()
	key := newTestKey(t)
	b, chain := newSimChain(t, key.Address)
	nonce, err := chain.PendingNonceAt(ctx, key.Address)
	if err != nil {
		t.Fatal(err)
	}
	head, err := chain.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(key.Private, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: nonce, Gas: 200_000, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), big.NewInt(params.GWei)),
		GasTipCap: big.NewInt(params.GWei), Data: revertingCode(), // the simulated miner's least tip
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := chain.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	nodetest.MineWhen(t, b, func() bool { return true })
	waitReceipt(t, chain, tx.Hash())
	if r, err := chain.TransactionReceipt(ctx, tx.Hash()); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deploying: %+v, %v", r, err)
	}
	addr := crypto.CreateAddress(key.Address, nonce)
	if code, err := chain.CodeAt(ctx, addr, nil); err != nil || len(code) == 0 {
		t.Fatalf("the reverting contract was not deployed: %x, %v", code, err)
	}

	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{})
	_, err = s.Estimate(ctx, addr, nil, nil)
	if !errors.Is(err, ErrWouldRevert) {
		t.Fatalf("estimate: %v, want ErrWouldRevert", err)
	}
	if msg, ok := RevertMessage(err); !ok || msg != "no" {
		t.Errorf("estimate's revert: %q, %v; want \"no\"", msg, ok)
	}
	_, err = chain.PendingCallContract(ctx, ethereum.CallMsg{From: key.Address, To: &addr})
	if data, ok := RevertData(err); !ok || len(data) != 100 {
		t.Errorf("eth_call's revert data: %x, %v", data, ok)
	}
	if msg, ok := RevertMessage(err); !ok || msg != "no" {
		t.Errorf("eth_call's revert: %q, %v", msg, ok)
	}
	if r := refusal("f", err); r == nil || r.Detail != "no" {
		t.Errorf("refusal: %+v", r)
	}
}

// nodeError is what a node answered, as its words and code arrive at go-ethereum's JSON-RPC
// client (through a real rpc.Server in process).
type nodeError struct {
	msg  string
	code int
	data any
}

func (e nodeError) Error() string  { return e.msg }
func (e nodeError) ErrorCode() int { return e.code }
func (e nodeError) ErrorData() any { return e.data }

type answeringNode struct{ err error }

func (n answeringNode) EstimateGas(context.Context, map[string]any) (hexutil.Uint64, error) {
	return 0, n.err
}

func estimateAgainst(t *testing.T, answer error) error {
	t.Helper()
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", answeringNode{answer}); err != nil {
		t.Fatal(err)
	}
	client := ethclient.NewClient(rpc.DialInProc(srv))
	t.Cleanup(func() { client.Close(); srv.Stop() })
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	_, err := client.EstimateGas(context.Background(), ethereum.CallMsg{To: &to})
	if err == nil {
		t.Fatal("the node's error did not come back")
	}
	return err
}

// Whether a call reverted is the code of the node's answer, never its words: a revert in other
// words is one, words that say "execution reverted" under another code are not.
func TestARevertIsItsCodeNotItsWords(t *testing.T) {
	reason := hexutil.Encode(append(hexutil.MustDecode("0x4e487b71"), common.LeftPadBytes([]byte{0x11}, 32)...)) // Panic(0x11): overflow
	err := estimateAgainst(t, nodeError{msg: "la exécution a échoué", code: 3, data: reason})
	if msg, ok := RevertMessage(err); !ok || msg == "" {
		t.Errorf("a code-3 answer in other words: %q, %v", msg, ok)
	}
	bare := estimateAgainst(t, nodeError{msg: "reverted", code: 3, data: "0x"})
	if msg, ok := RevertMessage(bare); !ok || msg != "reverted without a reason" {
		t.Errorf("a bare revert: %q, %v", msg, ok)
	}
	words := estimateAgainst(t, nodeError{msg: "execution reverted", code: -32000})
	if _, ok := RevertData(words); ok {
		t.Errorf("%v read as a revert by its words", words)
	}
	if r := refusal("f", words); r != nil {
		t.Errorf("refusal of a non-revert: %+v", r)
	}
}
