package txm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/internal/nodetest"
	"github.com/pricerig/pricerig/rig/task"
)

func newTestKey(t *testing.T) task.Key {
	t.Helper()
	priv, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return task.Key{Address: crypto.PubkeyToAddress(priv.PublicKey), Private: priv, From: "test"}
}

func newSimChain(t *testing.T, funded ...common.Address) (*simulated.Backend, *nodetest.GatedChain) {
	t.Helper()
	alloc := types.GenesisAlloc{}
	for _, a := range funded {
		alloc[a] = types.Account{Balance: new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether))}
	}
	b := simulated.NewBackend(alloc)
	t.Cleanup(func() { b.Close() })
	return b, &nodetest.GatedChain{Client: b.Client()}
}

func TestSenderSendsAndTracksNonces(t *testing.T) {
	key := newTestKey(t)
	b, chain := newSimChain(t, key.Address)
	nodetest.MineWhen(t, b, func() bool { return true })
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond})
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	ctx := context.Background()
	var r *types.Receipt
	for i := 0; i < 3; i++ {
		var err error
		if r, err = s.Send(ctx, to, nil, big.NewInt(1000)); err != nil {
			t.Fatal(err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("receipt status %d", r.Status)
		}
	}
	waitHead(t, chain, r.BlockNumber.Uint64())
	bal, _ := chain.BalanceAt(ctx, to, nil)
	if bal.Int64() != 3000 {
		t.Fatalf("recipient balance %s, want 3000", bal)
	}
	// Someone else uses the key's next nonce: the sender sees "nonce too low" and recovers.
	n, _ := chain.PendingNonceAt(ctx, key.Address)
	head, _ := chain.HeaderByNumber(ctx, nil)
	tip, _ := chain.SuggestGasTipCap(ctx)
	other, _ := types.SignNewTx(key.Private, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: n, GasTipCap: tip, GasFeeCap: new(big.Int).Mul(head.BaseFee, big.NewInt(3)), Gas: 21000, To: &to, Value: big.NewInt(1),
	})
	if err := chain.Client.SendTransaction(ctx, other); err != nil {
		t.Fatal(err)
	}
	waitReceipt(t, chain, other.Hash())
	// The node's pool takes the new head asynchronously; until it has, it still holds the foreign
	// transaction as pending and would take ours as its replacement. The sender's own nonce (n) is
	// what must be stale here, not the node's view.
	waitPendingNonce(t, chain, key.Address, n+1)
	r, err := s.Send(ctx, to, nil, big.NewInt(1000))
	if err != nil {
		t.Fatalf("after a foreign nonce: %v", err)
	}
	waitHead(t, chain, r.BlockNumber.Uint64())
	bal, _ = chain.BalanceAt(ctx, to, nil)
	if bal.Int64() != 4001 {
		t.Fatalf("recipient balance %s, want 4001", bal)
	}
}

// waitReceipt waits for the transaction's receipt. The bound is only a backstop against a hang:
// 5000 looks a millisecond apart ran out on the loaded CI machine before the block was sealed.
func waitReceipt(t *testing.T, chain *nodetest.GatedChain, h common.Hash) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		if r, err := chain.TransactionReceipt(ctx, h); err == nil && r != nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("transaction never mined")
		case <-time.After(time.Millisecond):
		}
	}
}

// waitHead waits until the chain's head reaches block: a receipt can be found a moment before its
// block is the head that "latest" reads. The bound is only a backstop against a hang.
func waitHead(t *testing.T, chain *nodetest.GatedChain, block uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		if h, err := chain.HeaderByNumber(ctx, nil); err == nil && h.Number.Uint64() >= block {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("head never reached block %d", block)
		case <-time.After(time.Millisecond):
		}
	}
}

// waitPendingNonce waits until the node's pending nonce of addr is want. The bound is only a
// backstop against a hang.
func waitPendingNonce(t *testing.T, chain *nodetest.GatedChain, addr common.Address, want uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		if n, err := chain.PendingNonceAt(ctx, addr); err == nil && n == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pending nonce never reached %d", want)
		case <-time.After(time.Millisecond):
		}
	}
}

func TestSenderReplacesAStuckTransaction(t *testing.T) {
	key := newTestKey(t)
	b, chain := newSimChain(t, key.Address)
	// Nothing is mined until the sender has broadcast three versions of its transaction.
	nodetest.MineWhen(t, b, func() bool { return chain.Sends.Load() >= 3 })
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond, BumpAfter: 5 * time.Millisecond, MaxBumps: 50})
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	r, err := s.Send(context.Background(), to, nil, big.NewInt(5))
	if err != nil {
		t.Fatal(err)
	}
	if chain.Sends.Load() < 3 {
		t.Fatalf("only %d broadcasts", chain.Sends.Load())
	}
	tx, _, err := chain.TransactionByHash(context.Background(), r.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	first := chain.FirstTip.Load()
	if tx.GasTipCap().Cmp(first) <= 0 {
		t.Fatalf("mined tip %s not above the first tip %s", tx.GasTipCap(), first)
	}
	waitHead(t, chain, r.BlockNumber.Uint64()) // the receipt may come a moment before its block is latest
	bal, _ := chain.BalanceAt(context.Background(), to, nil)
	if bal.Int64() != 5 {
		t.Fatalf("paid %s times, want exactly once", bal)
	}
}

func TestSenderSurvivesABriefRPCOutage(t *testing.T) {
	key := newTestKey(t)
	b, chain := newSimChain(t, key.Address)
	nodetest.MineWhen(t, b, func() bool { return true })
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond, RetryRPC: 3})
	chain.FailCalls.Store(2)
	if _, err := s.Send(context.Background(), common.Address{1}, nil, big.NewInt(1)); err != nil {
		t.Fatalf("after 2 failed calls: %v", err)
	}
	chain.FailCalls.Store(10)
	_, err := s.Send(context.Background(), common.Address{1}, nil, big.NewInt(1))
	if !errors.Is(err, ErrRPCUnavailable) {
		t.Fatalf("long outage: %v", err)
	}
}

func TestSenderInsufficientFunds(t *testing.T) {
	key := newTestKey(t)
	b, chain := newSimChain(t) // the key holds nothing
	nodetest.MineWhen(t, b, func() bool { return true })
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond})
	_, err := s.Send(context.Background(), common.Address{1}, nil, big.NewInt(1))
	if !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("got %v", err)
	}
}

// A node that cannot be reached is told by the error's type, whatever its words: a wrapped
// *net.OpError, a bare ECONNREFUSED, a cut connection, a deadline, a gateway's 503; an error that
// only says "connection refused" in words is not one, and neither is a cancelled call.
func TestTransportFailuresAreToldByType(t *testing.T) {
	unreachable := []error{
		nodetest.Refused(),
		fmt.Errorf("head: %w", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("x")}), // no telling word in its text
		fmt.Errorf("send: %w", syscall.ECONNREFUSED),
		fmt.Errorf("reading the answer: %w", io.ErrUnexpectedEOF),
		io.EOF,
		&net.DNSError{Err: "gone", Name: "node.invalid"},
		fmt.Errorf("eth_chainId: %w", context.DeadlineExceeded),
		rpc.HTTPError{StatusCode: 503, Status: "503 Service Unavailable"},
	}
	for _, err := range unreachable {
		// (rpc.HTTPError holds its body: not comparable, so the original is told by its text)
		if got := ClassifyRPCError(err); !errors.Is(got, ErrRPCUnavailable) || got.Error() != ErrRPCUnavailable.Error()+": "+err.Error() {
			t.Errorf("%#v classified as %v", err, got)
		}
	}
	for _, err := range []error{
		errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), // words only
		context.Canceled,
		rpc.HTTPError{StatusCode: 400, Status: "400 Bad Request"},
		nodeError{msg: "i/o timeout EOF", code: -32000},
	} {
		if got := ClassifyRPCError(err); got.Error() != err.Error() || errors.Is(got, ErrRPCUnavailable) {
			t.Errorf("%v classified as %v", err, got)
		}
	}
}

// A node refuses a transaction with a JSON-RPC error of a generic code and words: the words,
// as they arrive through go-ethereum's real JSON-RPC client, are the kind; the same words in an
// error that is not the node's answer are not.
func TestNodeRejectionsAreReadFromTheNodesWords(t *testing.T) {
	tests := []struct {
		msg  string
		want error
	}{
		{"nonce too low: next nonce 5, tx nonce 4", ErrNonceTooLow},
		{"already known", ErrAlreadyKnown},
		{"replacement transaction underpriced", ErrUnderpriced},
		{"max fee per gas less than block base fee: address 0x…", ErrUnderpriced},
		{"insufficient funds for gas * price + value", ErrInsufficientFunds},
		{"nonce too high", ErrNonceTooHigh},
	}
	for _, tc := range tests {
		answer := estimateAgainst(t, nodeError{msg: tc.msg, code: -32000})
		if got := ClassifyRPCError(answer); !errors.Is(got, tc.want) || !errors.Is(got, answer) {
			t.Errorf("the node's %q classified as %v", tc.msg, got)
		}
		if local := errors.New(tc.msg); ClassifyRPCError(local) != local {
			t.Errorf("a local error saying %q classified as %v", tc.msg, ClassifyRPCError(local))
		}
	}
	other := estimateAgainst(t, nodeError{msg: "execution reverted: NotDrawn", code: 3})
	if got := ClassifyRPCError(other); got != other {
		t.Errorf("unknown error rewrapped: %v", got)
	}
}

func TestSenderPipelinesConcurrentSends(t *testing.T) {
	key := newTestKey(t)
	b, chain := newSimChain(t, key.Address)
	nodetest.MineWhen(t, b, func() bool { return true })
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond})
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	var last atomic.Uint64 // the highest block a receipt names
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Send(context.Background(), to, nil, big.NewInt(3))
			if err != nil {
				errs <- err
				return
			}
			for n := r.BlockNumber.Uint64(); ; {
				if seen := last.Load(); seen >= n || last.CompareAndSwap(seen, n) {
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// A receipt can be found a moment before its block is the head that "latest" reads.
	waitHead(t, chain, last.Load())
	bal, _ := chain.BalanceAt(context.Background(), to, nil)
	n, _ := chain.NonceAt(context.Background(), key.Address, nil)
	if bal.Int64() != 60 || n != 20 {
		t.Fatalf("balance %s nonce %d, want 60 and 20", bal, n)
	}
}
