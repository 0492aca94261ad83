package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/internal/testbound"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/devnet"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// chainT is a devnet reached over JSON-RPC, as the CLI commands reach it.
type chainT struct {
	t      *testing.T
	ctx    context.Context
	d      *devnet.Devnet
	client *ethclient.Client
	flags  []string // --network devnet --rpc … --contract … --config …
}

// testContext is the context of an end-to-end test, bounded by the test's own cap (testbound):
// a hang fails that test by name and the tests after it still run, while a slow run on a loaded
// machine finishes (fixed bounds of 2 to 4 minutes ran out in a CI run beside other work, the
// tasks still on their way).
func testContext(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	return testbound.Context(t, testbound.Cap)
}

func startChainT(t *testing.T, o devnet.Options) *chainT {
	t.Helper()
	testbound.EndToEnd(t)
	ctx, _ := testContext(t)
	spec, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o.Spec, o.Instant = spec, true // the last closed minute, trusted at once (instantSpec)
	if o.L1Interval == 0 {
		o.L1Interval = testL1Interval
	}
	d, err := devnet.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	client, err := d.Chain.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return &chainT{t: t, ctx: ctx, d: d, client: client,
		flags: []string{"--network", "devnet", "--rpc", d.Chain.URL, "--contract", d.Contract.Hex(), "--config", instantSpec(t)}}
}

// useKey puts a key in an environment variable for --key-env and returns its address.
func (c *chainT) useKey(name string, key *ecdsa.PrivateKey) common.Address {
	c.t.Setenv(name, hex.EncodeToString(crypto.FromECDSA(key)))
	return crypto.PubkeyToAddress(key.PublicKey)
}

// testL1Interval is the L1 block time of the devnets these tests start: a draw waits for L1 to
// pass its order block, up to an interval (12 s on Robinhood Chain). The rig and order --wait
// are told it (--l1-interval), as `devnet --keep` prints it.
const testL1Interval = 2 * time.Second

// cli runs a chain command with the devnet's flags appended (and its L1 interval for the
// commands that read the chain's clock).
func (c *chainT) cli(args ...string) (int, string, string) {
	c.t.Helper()
	if args[0] == "rig" || args[0] == "order" {
		args = append(args, "--l1-interval", c.d.Chain.L1.Interval.String())
	}
	return runCLI(c.t, append(args, c.flags...)...)
}

// must runs a chain command that has to succeed and decodes its JSON output into v.
func (c *chainT) must(v any, args ...string) {
	c.t.Helper()
	code, out, stderr := c.cli(args...)
	if code != 0 {
		c.t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, stderr)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(out), v); err != nil {
			c.t.Fatalf("%v: %v in %s", args, err, out)
		}
	}
}

func (c *chainT) balance(a common.Address) *big.Int {
	c.t.Helper()
	b, err := c.client.BalanceAt(c.ctx, a, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

func (c *chainT) nonce(a common.Address) uint64 {
	c.t.Helper()
	n, err := c.client.NonceAt(c.ctx, a, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// fee reads what a transaction cost from its receipt, independently of what the CLI printed,
// and checks the CLI printed the same.
func (c *chainT) fee(s sentJSON) *big.Int {
	c.t.Helper()
	r, err := c.client.TransactionReceipt(c.ctx, common.HexToHash(s.TxHash))
	if err != nil {
		c.t.Fatalf("receipt %s: %v", s.TxHash, err)
	}
	fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
	if fee.String() != s.FeePaid || fee.Sign() <= 0 {
		c.t.Fatalf("tx %s cost %s wei, the CLI says %s", s.TxHash, fee, s.FeePaid)
	}
	return fee
}

func (c *chainT) credits(a common.Address) *big.Int {
	c.t.Helper()
	v, err := agentrig.NewContract(c.client, c.d.Contract).Credits(c.ctx, a)
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

func wantWei(t *testing.T, what string, got, want *big.Int) {
	t.Helper()
	if got.Cmp(want) != 0 {
		t.Fatalf("%s: %s wei, want %s wei (off by %s)", what, got, want, new(big.Int).Sub(got, want))
	}
}

func sum(vs ...*big.Int) *big.Int {
	out := new(big.Int)
	for _, v := range vs {
		out.Add(out, v)
	}
	return out
}

// A fresh key registers a rig, runs `pricerig rig`, is drawn in tasks ordered with
// `pricerig order --wait` (one input, then several), earns, withdraws exactly the credited wei,
// deactivates and takes its stake back; every balance is checked to the wei, gas included.
func TestOperatorAndOrdererLifecycleThroughTheCLI(t *testing.T) {
	c := startChainT(t, devnet.Options{Layout: []int{1, 1}, FundedKeys: 2})
	op := c.useKey("PRICERIG_T_OPERATOR", c.d.FundedKeys[0])
	user := c.useKey("PRICERIG_T_USER", c.d.FundedKeys[1])
	stake := new(big.Int).Mul(big.NewInt(100_000), big.NewInt(1e9)) // 0.0001 ETH

	// register
	before := c.balance(op)
	var reg txOutput
	c.must(&reg, "operator", "register", "--job", "2", "--stake", "0.0001", "--key-env", "PRICERIG_T_OPERATOR", "--yes", "--json")
	if reg.RigID != 3 || reg.Plan.Function != fmt.Sprintf("registerRig(2, %s)", op.Hex()) || reg.Plan.ValueWei != stake.String() || reg.Plan.Gas == 0 {
		t.Fatalf("register: %+v", reg)
	}
	wantWei(t, "balance after register", c.balance(op), new(big.Int).Sub(before, sum(stake, c.fee(reg.Sent))))
	registered := c.balance(op) // from here on only the rig's own transactions spend it

	// its rig runs as a separate `pricerig rig`
	rigCtx, stopRig := context.WithCancel(c.ctx)
	var rigOut, rigErr syncbuf.Buffer
	rigDone := make(chan int)
	journal := filepath.Join(t.TempDir(), "rig.db")
	go func() {
		rigDone <- run(rigCtx, append([]string{"rig", "--key-env", "PRICERIG_T_OPERATOR", "--sim", c.d.SimURL,
			"--journal", journal, "--from-block", "1", "--l1-interval", testL1Interval.String()}, c.flags...), strings.NewReader(""), &rigOut, &rigErr)
	}()

	// order one input and wait: three active rigs, quorum three, so ours is drawn
	minute := devnet.DefaultMinute(time.Now(), c.d.Spec.Rules.Sessions).Format(time.RFC3339)
	price := big.NewInt(10_000_000_000_000) // job 2: 0.00001 ETH
	before = c.balance(user)
	var one orderOutput
	// --act-after past the test's life: the rigs draw and settle. At the 10 s default a loaded
	// machine's slow rigs let the orderer draw or settle itself, and its balance was that
	// transaction's fee short of what the order alone costs.
	c.must(&one, "order", "NVDA", minute, "--wait", "--act-after", "24h", "--key-env", "PRICERIG_T_USER", "--yes", "--json")
	if len(one.Tasks) != 1 || len(one.Answers) != 1 || !one.Answers[0].Agreed || one.Answers[0].Reveals != 3 || one.Answers[0].Refused ||
		!strings.HasPrefix(one.Plan.Function, "order(2, ") || !strings.HasPrefix(one.Tasks[0].InputURI, "data:application/json,") {
		t.Fatalf("order one: %+v", one)
	}
	if got := task.InputHash(one.Tasks[0].InputURI).Hex(); got != one.Tasks[0].InputHash {
		t.Fatalf("input hash %s is not the keccak of the URI (%s)", one.Tasks[0].InputHash, got)
	}
	wantWei(t, "orderer after one order", c.balance(user), new(big.Int).Sub(before, sum(price, c.fee(one.Sent))))

	// several inputs: one orderMany paying exactly twice the price
	before = c.balance(user)
	var many orderOutput
	c.must(&many, "order", "TSLA", minute, "SPY", minute, "--wait", "--act-after", "24h", "--key-env", "PRICERIG_T_USER", "--yes", "--json")
	if len(many.Tasks) != 2 || len(many.Answers) != 2 || !strings.HasPrefix(many.Plan.Function, "orderMany(2, 2 inputs)") ||
		many.Tasks[1].TaskID != many.Tasks[0].TaskID+1 {
		t.Fatalf("order many: %+v", many)
	}
	wantWei(t, "orderer after orderMany", c.balance(user), new(big.Int).Sub(before, sum(price, price, c.fee(many.Sent))))

	// answer reads the same outcomes back
	ids := []string{fmt.Sprint(one.Tasks[0].TaskID), fmt.Sprint(many.Tasks[0].TaskID), fmt.Sprint(many.Tasks[1].TaskID)}
	var answers []answerJSON
	c.must(&answers, append([]string{"answer", "--json"}, ids...)...)
	all := append(one.Answers, many.Answers...)
	for i, a := range answers {
		if a != all[i] || a.Phase != "settled" || !a.Agreed || !strings.Contains(a.Price, ".") {
			t.Fatalf("answer %d: %+v, order --wait said %+v", i, a, all[i])
		}
	}
	code, out, _ := c.cli(append([]string{"answer"}, ids...)...)
	if code != 0 || strings.Count(out, "settled, agreed") != 3 {
		t.Fatalf("answer exit %d:\n%s", code, out)
	}

	// status: three tasks answered and agreed; each earned the price less the builder's 10 %,
	// split three ways
	var st statusJSON
	c.must(&st, "operator", "status", "--key-env", "PRICERIG_T_OPERATOR", "--json")
	share := new(big.Int).Div(new(big.Int).Sub(price, new(big.Int).Div(price, big.NewInt(10))), big.NewInt(3))
	earned := new(big.Int).Mul(share, big.NewInt(3))
	if len(st.Rigs) != 1 || st.Rigs[0].RigID != 3 || !st.Rigs[0].Active || !st.Rigs[0].Drawable || st.Rigs[0].Answered != 3 ||
		st.Rigs[0].Agreed != 3 || st.Rigs[0].Missed != 0 || st.Rigs[0].Slashed != 0 || st.CreditsWei != earned.String() ||
		st.Rigs[0].LockedWei != "0" || st.GasPerTask == 0 || st.DayOfGasWei == "" {
		t.Fatalf("status: %+v", st)
	}
	// with the rig's journal: what the rig paid in gas is what its key's balance lost since the
	// registration (the chain's own number), and what it earned is the contract's credits. The
	// last settle's receipt, and the last task's payouts, may reach the journal a poll after the
	// chain has them: read again until the chain and the journal agree.
	for {
		c.must(&st, "operator", "status", "--key-env", "PRICERIG_T_OPERATOR", "--json", "--journal", journal)
		spent := new(big.Int).Sub(registered, c.balance(op))
		a := st.Accounts
		if a == nil || len(a.Rigs) != 1 || a.Rigs[0].RigID != 3 {
			t.Fatalf("status --journal: %+v", a)
		}
		if a.Rigs[0].Total.GasPaidWei == spent.String() && a.Rigs[0].Total.EarnedWei == earned.String() {
			r := a.Rigs[0]
			margin := new(big.Int).Sub(earned, spent)
			if r.Total.EarnedWei != earned.String() || r.Total.MarginWei != margin.String() || r.LastDay != r.Total ||
				r.Total.Reverted != 0 || r.Total.Txs < 6 || a.JournalAll != r.Total || a.Journal != journal {
				t.Fatalf("status --journal: %+v (spent %s, earned %s)", a, spent, earned)
			}
			break
		}
		select {
		case <-c.ctx.Done():
			t.Fatalf("status --journal: gas paid %s wei, the key's balance lost %s wei; earned %s wei, credited %s wei",
				a.Rigs[0].Total.GasPaidWei, spent, a.Rigs[0].Total.EarnedWei, earned)
		case <-time.After(100 * time.Millisecond):
		}
	}
	code, out, _ = c.cli("operator", "status", "--key-env", "PRICERIG_T_OPERATOR", "--journal", journal)
	if code != 0 || !strings.Contains(out, "rig 3, total:") || !strings.Contains(out, "earned "+audit.FormatETH(earned)+" ETH") {
		t.Fatalf("status --journal, human: exit %d:\n%s", code, out)
	}
	code, _, stderr := runCLI(t, append([]string{"operator", "status", "--key-env", "PRICERIG_T_OPERATOR", "--journal", filepath.Join(t.TempDir(), "none.db")}, c.flags...)...)
	if code != exitBadInput || !strings.Contains(stderr, "--journal") {
		t.Fatalf("status with a journal that does not exist: exit %d: %s", code, stderr)
	}

	// withdraw exactly the credited wei
	before = c.balance(op)
	var wd struct {
		txOutput
		Withdrawn string `json:"withdrawn_wei"`
	}
	c.must(&wd, "operator", "withdraw", "--key-env", "PRICERIG_T_OPERATOR", "--yes", "--json")
	if wd.Withdrawn != earned.String() {
		t.Fatalf("withdrew %s, credited %s", wd.Withdrawn, earned)
	}
	wantWei(t, "operator after withdraw", c.balance(op), new(big.Int).Sub(sum(before, earned), c.fee(wd.Sent)))
	wantWei(t, "credits after withdraw", c.credits(op), new(big.Int))

	// leave: stop the rig, deactivate, take the stake back
	stopRig()
	if code := <-rigDone; code != 0 {
		t.Fatalf("rig exited %d:\n%s", code, rigErr.String())
	}
	before = c.balance(op)
	var deact, back, wd2 txOutput
	c.must(&deact, "operator", "deactivate", "--key-env", "PRICERIG_T_OPERATOR", "--yes", "--json")
	c.must(&back, "operator", "stake", "withdraw", "--amount", "all", "--rig", "3", "--key-env", "PRICERIG_T_OPERATOR", "--yes", "--json")
	wantWei(t, "credits after stake withdraw", c.credits(op), stake)
	c.must(&wd2, "operator", "withdraw", "--key-env", "PRICERIG_T_OPERATOR", "--yes", "--json")
	wantWei(t, "operator after leaving", c.balance(op), new(big.Int).Sub(sum(before, stake), sum(c.fee(deact.Sent), c.fee(back.Sent), c.fee(wd2.Sent))))
	c.must(&st, "operator", "status", "--key-env", "PRICERIG_T_OPERATOR", "--json")
	if st.Rigs[0].Active || st.Rigs[0].Drawable || st.Rigs[0].StakeWei != "0" || st.CreditsWei != "0" {
		t.Fatalf("status after leaving: %+v", st)
	}
}

// The refusals: a wrong chain, an order nobody could answer, an input the rigs would refuse, a
// send nobody confirmed, a transaction the simulation says reverts: each explained, nothing
// sent. Then a task nobody draws is refunded after the hour (chain time) and the orderer gets
// its price back to the wei.
func TestRefusalsSendNothingAndRefundAfterTheHour(t *testing.T) {
	c := startChainT(t, devnet.Options{Layout: []int{}, FundedKeys: 4})
	user := c.useKey("PRICERIG_T_USER", c.d.FundedKeys[0])
	minute := devnet.DefaultMinute(time.Now(), c.d.Spec.Rules.Sessions).Format(time.RFC3339)

	// the devnet is chain 4663; robinhood-testnet is 46630
	code, _, stderr := runCLI(t, "answer", "1", "--network", "robinhood-testnet", "--rpc", c.d.Chain.URL, "--contract", c.d.Contract.Hex())
	if code != exitBadInput || !strings.Contains(stderr, "chain id 4663, not 46630") {
		t.Fatalf("chain mismatch: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "operator", "withdraw", "--key-env", "PRICERIG_T_USER", "--yes", "--network", "devnet", "--rpc", c.d.Chain.URL,
		"--contract", c.d.Contract.Hex(), "--chain-id", "46630")
	if code != exitBadInput || !strings.Contains(stderr, "wrong chain") || c.nonce(user) != 0 {
		t.Fatalf("chain mismatch on a send: exit %d: %s", code, stderr)
	}

	// a provider key in the RPC URL's path never reaches the output
	const rpcKey = "k3yInThePath0123456789"
	code, stdout, stderr := runCLI(t, "answer", "1", "--network", "devnet", "--rpc", c.d.Chain.URL+"/v2/"+rpcKey, "--contract", c.d.Contract.Hex())
	if code == 0 || strings.Contains(stdout+stderr, rpcKey) || !strings.Contains(stderr, "/v2/REDACTED") {
		t.Fatalf("rpc key: exit %d: %s%s", code, stdout, stderr)
	}

	// no rigs: NotEnoughRigs is explained before anything is paid
	code, _, stderr = c.cli("order", "NVDA", minute, "--key-env", "PRICERIG_T_USER", "--yes")
	if code != exitFailure || !strings.Contains(stderr, "NotEnoughRigs") || !strings.Contains(stderr, "nothing was paid") || c.nonce(user) != 0 {
		t.Fatalf("order without rigs: exit %d: %s", code, stderr)
	}

	// three operators register through the CLI (no rig process runs, so nobody draws)
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("PRICERIG_T_OP%d", i)
		c.useKey(name, c.d.FundedKeys[i])
		c.must(nil, "operator", "register", "--stake", "0.00001", "--key-env", name, "--yes")
	}

	// stake add: exactly the amount, to the wei
	op1 := crypto.PubkeyToAddress(c.d.FundedKeys[1].PublicKey)
	before := c.balance(op1)
	var add txOutput
	c.must(&add, "operator", "stake", "add", "--amount", "0.000002", "--key-env", "PRICERIG_T_OP1", "--yes", "--json")
	added := big.NewInt(2_000_000_000_000)
	wantWei(t, "operator after stake add", c.balance(op1), new(big.Int).Sub(before, sum(added, c.fee(add.Sent))))
	info, err := agentrig.NewContract(c.client, c.d.Contract).Rig(c.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantWei(t, "rig 1 stake", info.Stake, sum(big.NewInt(10_000_000_000_000), added))

	// fee set: the signed consent is recorded; with --relayer it is printed, checks out, and
	// nothing is sent
	nonce := c.nonce(op1)
	var signed map[string]any
	c.must(&signed, "operator", "fee", "set", "--bps", "250", "--payee", user.Hex(), "--relayer", user.Hex(), "--key-env", "PRICERIG_T_OP1")
	digest, sig := common.HexToHash(signed["digest"].(string)), common.FromHex(signed["signature"].(string))
	if err := task.Verify(digest, sig, op1); err != nil || c.nonce(op1) != nonce || signed["chain_id"] != float64(4663) {
		t.Fatalf("printed consent %v: %v (nonce %d → %d)", signed, err, nonce, c.nonce(op1))
	}
	c.must(nil, "operator", "fee", "set", "--bps", "250", "--payee", user.Hex(), "--key-env", "PRICERIG_T_OP1", "--yes")
	fee, err := agentrig.NewContract(c.client, c.d.Contract).OperatorFeeOf(c.ctx, op1)
	if err != nil || fee.Bps != 250 || fee.Payee != user || fee.Nonce.Sign() != 0 {
		t.Fatalf("fee consent on chain: %+v %v", fee, err)
	}

	// inputs the rigs would refuse: exit 2, nothing sent
	for _, args := range [][]string{
		{"DOGE", minute},
		{"NVDA", time.Now().Add(24 * time.Hour).UTC().Truncate(time.Minute).Format(time.RFC3339)},
		{"NVDA", "2026-11-27T15:30:30Z"},
	} {
		code, _, stderr = c.cli(append([]string{"order"}, append(args, "--key-env", "PRICERIG_T_USER", "--yes")...)...)
		if code != exitBadInput || c.nonce(user) != 0 {
			t.Fatalf("order %v: exit %d: %s", args, code, stderr)
		}
	}

	// no terminal and no --yes: shown, not sent
	code, _, stderr = c.cli("order", "NVDA", minute, "--key-env", "PRICERIG_T_USER")
	if code != exitBadInput || !strings.Contains(stderr, "not a terminal and no --yes") || !strings.Contains(stderr, "function:  order(2, ") || c.nonce(user) != 0 {
		t.Fatalf("unconfirmed order: exit %d: %s", code, stderr)
	}

	// the simulation says withdraw reverts (no credits): the reason is printed, nothing sent
	code, _, stderr = c.cli("operator", "withdraw", "--key-env", "PRICERIG_T_USER", "--yes")
	if code != exitFailure || !strings.Contains(stderr, "NothingToWithdraw") || !strings.Contains(stderr, "nothing was sent") || c.nonce(user) != 0 {
		t.Fatalf("reverting withdraw: exit %d: %s", code, stderr)
	}

	// an order nobody draws, refunded after the hour
	before = c.balance(user)
	var ord orderOutput
	c.must(&ord, "order", "NVDA", minute, "--key-env", "PRICERIG_T_USER", "--yes", "--json")
	id := fmt.Sprint(ord.Tasks[0].TaskID)
	price := big.NewInt(10_000_000_000_000)
	wantWei(t, "orderer after the order", c.balance(user), new(big.Int).Sub(before, sum(price, c.fee(ord.Sent))))
	refunder := c.useKey("PRICERIG_T_REFUNDER", c.d.FundedKeys[1])
	code, _, stderr = c.cli("refund", id, "--key-env", "PRICERIG_T_REFUNDER", "--yes")
	if code != exitFailure || !strings.Contains(stderr, "can be refunded from") {
		t.Fatalf("early refund: exit %d: %s", code, stderr)
	}
	nonce = c.nonce(refunder)
	for {
		err := c.d.Chain.Do(func(b *devnet.Sequencer) error { return b.AdjustTime(time.Hour + time.Second) })
		if err == nil {
			break
		}
		select {
		case <-c.ctx.Done():
			t.Fatalf("adjust time: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	var ref txOutput
	c.must(&ref, "refund", id, "--key-env", "PRICERIG_T_REFUNDER", "--yes", "--json")
	if c.nonce(refunder) != nonce+1 {
		t.Fatalf("refund sent %d transactions", c.nonce(refunder)-nonce)
	}
	wantWei(t, "orderer's credits after the refund", c.credits(user), price)
	var answers []answerJSON
	code, out, _ := c.cli("answer", id, "--json")
	if code != exitFailure || json.Unmarshal([]byte(out), &answers) != nil || answers[0].Phase != "refunded" {
		t.Fatalf("answer of a refunded task: exit %d: %s", code, out)
	}
	before = c.balance(user)
	var wd txOutput
	c.must(&wd, "operator", "withdraw", "--key-env", "PRICERIG_T_USER", "--yes", "--json")
	wantWei(t, "orderer after withdrawing the refund", c.balance(user), new(big.Int).Sub(sum(before, price), c.fee(wd.Sent)))
}

// A task the spec refuses, ordered as a griefer would (a raw order, not `pricerig order`, which
// refuses it before paying), settles on refusal_answer 0; `answer` prints it as refused by the
// spec with the reason the rigs journaled, and exits 1.
func TestAnswerPrintsARefusalWithTheJournaledReason(t *testing.T) {
	c := startChainT(t, devnet.Options{})
	c.useKey("PRICERIG_T_USER", c.d.Funded)
	minute := devnet.DefaultMinute(time.Now(), c.d.Spec.Rules.Sessions)
	uri, hash, err := task.InputRules{Symbols: []string{"DOGE"}}.Encode("DOGE", minute)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := c.cli("order", "DOGE", minute.Format(time.RFC3339), "--key-env", "PRICERIG_T_USER", "--yes")
	if code != exitBadInput || !strings.Contains(stderr, "the rigs would refuse it") {
		t.Fatalf("order of an unknown symbol: exit %d: %s", code, stderr)
	}
	contract := agentrig.NewContract(c.client, c.d.Contract)
	key := task.Key{Address: crypto.PubkeyToAddress(c.d.Funded.PublicKey), Private: c.d.Funded, From: "griefer"}
	sender := txm.NewSender(c.client, key, new(big.Int).SetUint64(c.d.ChainID), txm.SenderConfig{Poll: 20 * time.Millisecond})
	plan, err := txm.Prepare(c.ctx, c.client, key.Address, contract.OrderCall(2, big.NewInt(10_000_000_000_000), []agentrig.OrderInput{{URI: uri, Hash: hash}}))
	if err != nil {
		t.Fatal(err)
	}
	r, err := txm.SendPlan(c.ctx, sender, plan)
	if err != nil {
		t.Fatal(err)
	}
	ids := contract.OrderedTasks(r)
	if _, err := agentrig.Follow(c.ctx, contract, nil, ids, agentrig.FollowOptions{Poll: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	args := []string{"answer", fmt.Sprint(ids[0])}
	for i := range c.d.Runners {
		args = append(args, "--journal", c.d.JournalPath(i))
	}
	code, out, stderr := c.cli(args...)
	if code != exitFailure || !strings.Contains(out, "refused by the spec: ") || !strings.Contains(out, "DOGE") {
		t.Fatalf("answer: exit %d\n%s%s", code, out, stderr)
	}
	var answers []answerJSON
	code, out, _ = c.cli(append(args, "--json")...)
	if code != exitFailure || json.Unmarshal([]byte(out), &answers) != nil || !answers[0].Refused || !answers[0].Agreed ||
		answers[0].Reveals != 3 || answers[0].RefusalReason == "" || answers[0].Price != "0.00" || answers[0].Answer != "0x"+strings.Repeat("0", 64) {
		t.Fatalf("answer --json: exit %d: %s", code, out)
	}
	// without a journal: still refused by the spec, no reason to give
	code, out, _ = c.cli("answer", fmt.Sprint(ids[0]))
	if code != exitFailure || !strings.Contains(out, "settled, refused by the spec (answer 0") {
		t.Fatalf("answer without journals: exit %d: %s", code, out)
	}
}

// Nobody runs a rig: `order --wait` draws the task itself, the windows pass with no commit, and it
// settles the task itself; the task did not agree, the orderer is credited its price back, and
// the three silent rigs are slashed.
func TestOrderWaitDrawsAndSettlesWhatNobodyDoes(t *testing.T) {
	c := startChainT(t, devnet.Options{Layout: []int{}, FundedKeys: 4, CommitWindow: 5 * time.Second, RevealWindow: 5 * time.Second})
	user := c.useKey("PRICERIG_T_USER", c.d.FundedKeys[0])
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("PRICERIG_T_OP%d", i)
		c.useKey(name, c.d.FundedKeys[i])
		c.must(nil, "operator", "register", "--stake", "0.00001", "--key-env", name, "--yes")
	}
	minute := devnet.DefaultMinute(time.Now(), c.d.Spec.Rules.Sessions).Format(time.RFC3339)
	nonce := c.nonce(user)
	var ord orderOutput
	code, out, stderr := c.cli("order", "SPY", minute, "--wait", "--act-after", "500ms", "--key-env", "PRICERIG_T_USER", "--yes", "--json")
	if code != exitFailure || json.Unmarshal([]byte(out), &ord) != nil || len(ord.Answers) != 1 {
		t.Fatalf("order --wait: exit %d\n%s\n%s", code, out, stderr)
	}
	a := ord.Answers[0]
	if a.Phase != "settled" || a.Agreed || a.Reveals != 0 || a.Refused {
		t.Fatalf("answer %+v", a)
	}
	// the order, the draw and the settle: three transactions from the orderer
	if got := c.nonce(user) - nonce; got != 3 || !strings.Contains(stderr, "drawn, rigs commit") {
		t.Fatalf("the orderer sent %d transactions\n%s", got, stderr)
	}
	wantWei(t, "orderer's credits", c.credits(user), big.NewInt(10_000_000_000_000))
	var st statusJSON
	c.must(&st, "operator", "status", "--key-env", "PRICERIG_T_OP1", "--json")
	if len(st.Rigs) != 1 || st.Rigs[0].Missed != 1 || st.Rigs[0].StakeWei != "0" || st.Rigs[0].Drawable {
		t.Fatalf("a silent rig after the task: %+v", st.Rigs)
	}
}
