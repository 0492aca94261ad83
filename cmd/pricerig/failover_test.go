//go:build linux

package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/internal/testbound"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/devnet"
)

// The failover tests run real `pricerig rig` processes (this test binary as pricerig's main),
// several with one operator key and one PostgreSQL journal, against a devnet served over
// JSON-RPC whose two other rigs run in process. They kill, freeze and cut off the leader and
// judge the outcome on chain.

// rigProc is one `pricerig rig` instance.
type rigProc struct {
	name   string
	cmd    *exec.Cmd
	stderr syncbuf.Buffer
	done   chan struct{}
}

func (p *rigProc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// readyz returns the instance's /readyz answer ("" while it cannot be reached).
func (p *rigProc) readyz() string {
	log := p.stderr.String()
	i := strings.Index(log, "url=http://")
	if i < 0 {
		return ""
	}
	u := strings.TrimSuffix(strings.Fields(log[i+len("url="):])[0], "/metrics") + "/readyz"
	resp, err := http.Get(u)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b))
}

var (
	binaryOnce   sync.Once
	binaryPath   string
	binaryFailed string // why go build failed, when it did
	// goEnv is the environment the test binary started with, for go build: TestMain points
	// XDG_CACHE_HOME at a throwaway folder, and with it go's build cache, so a build there
	// compiled everything from the standard library up (TestPriceHostileSourcesMemory, the
	// first to ask for it, took 1275 s at a load of 15-25 on 2 cores).
	goEnv []string
)

// pricerigBinary is a pricerig built without the race detector for the instances (under -race
// the test binary runs them five times slower, and the failover tests run many); it falls back
// to this test binary as pricerig's main when the go tool cannot build one.
func pricerigBinary(t testing.TB) string {
	buildPricerig()
	if binaryFailed != "" {
		t.Logf("building pricerig failed, running this test binary instead: %s", binaryFailed)
	}
	return binaryPath
}

// buildPricerig builds pricerigBinary's binary once; TestMain starts it early, beside the first
// tests, when the whole package runs.
func buildPricerig() {
	binaryOnce.Do(func() {
		binaryPath = os.Args[0]
		dir, err := os.MkdirTemp("", "pricerig-bin-")
		if err != nil {
			binaryFailed = err.Error()
			return
		}
		out := filepath.Join(dir, "pricerig")
		build := exec.Command("go", "build", "-o", out, ".")
		build.Env = goEnv
		if b, err := build.CombinedOutput(); err != nil {
			binaryFailed = fmt.Sprintf("%v\n%s", err, b)
			return
		}
		binaryPath = out
	})
}

type failoverNet struct {
	d       *devnet.Devnet
	cluster *pgtest.Cluster
	journal string // the instances' shared PostgreSQL journal
	spec    string // the shipped spec, every bar trusted when its minute ends (instantSpec)
	key     *ecdsa.PrivateKey
	rigID   uint64
	client  *ethclient.Client
	abi     *agentrig.AgentRig
	started int
}

func newFailoverNet(t *testing.T, ctx context.Context) *failoverNet {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end failover run")
	}
	cluster := pgtest.Start(t)
	spec, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := devnet.Start(ctx, devnet.Options{Instant: true, Spec: spec, L1Interval: testL1Interval, Layout: []int{1, 1}, NoRelayer: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	f := &failoverNet{d: d, cluster: cluster, journal: cluster.NewDatabase(t), spec: instantSpec(t), key: d.Funded, abi: agentrig.NewAgentRig()}
	if err := d.RegisterRig(ctx, f.key); err != nil {
		t.Fatal(err)
	}
	if f.client, err = ethclient.DialContext(ctx, d.Chain.URL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.client.Close)
	addr := crypto.PubkeyToAddress(f.key.PublicKey)
	ids, err := agentrig.NewContract(f.client, d.Contract).RigIDsOf(ctx, devnet.PriceJobID, []common.Address{addr})
	if err != nil {
		t.Fatal(err)
	}
	f.rigID = ids[addr]
	return f
}

// start starts one more instance with the shared key and journal.
func (f *failoverNet) start(t *testing.T, verbose bool) *rigProc {
	t.Helper()
	f.started++
	p := &rigProc{name: fmt.Sprintf("i%d", f.started), done: make(chan struct{})}
	args := []string{"rig", "--network", "devnet", "--rpc", f.d.Chain.URL, "--contract", f.d.Contract.Hex(), "--key-env", "PRICERIG_TEST_OPERATOR",
		"--sim", f.d.SimURL, "--config", f.spec, "--journal", f.journal, "--from-block", "1",
		"--metrics", "127.0.0.1:0", "--lease-ttl", "2s", "--instance", p.name, "--l1-interval", testL1Interval.String()}
	if verbose {
		args = append(args, "-v")
	}
	p.cmd = exec.Command(pricerigBinary(t), args...)
	p.cmd.Env = append(os.Environ(), asMain+"=1", "PRICERIG_TEST_OPERATOR="+hex.EncodeToString(crypto.FromECDSA(f.key)))
	p.cmd.Stderr = &p.stderr
	// An instance dies with the test binary, even one killed by the test timeout.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		if p.running() {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("instance %s log (tail):\n%s", p.name, tail(p.stderr.String(), 4000))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// leader waits until exactly one running instance of procs (other than not) says it leads.
func (f *failoverNet) leader(t *testing.T, ctx context.Context, procs []*rigProc, not *rigProc) *rigProc {
	t.Helper()
	for ctx.Err() == nil {
		var leaders []*rigProc
		for _, p := range procs {
			if p != not && p.running() && p.readyz() == "leader" {
				leaders = append(leaders, p)
			}
		}
		if len(leaders) == 1 {
			return leaders[0]
		}
		if len(leaders) > 1 {
			t.Fatalf("%d instances say they lead at once", len(leaders))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no instance took the lead")
	return nil
}

// order orders one task per symbol at the last closed session minute.
func (f *failoverNet) order(t *testing.T, ctx context.Context, symbols ...string) []uint64 {
	t.Helper()
	ids, err := f.d.Order(ctx, symbols, devnet.DefaultMinute(time.Now(), f.d.Spec.Rules.Sessions))
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// settle waits for the tasks and checks every one agreed with all three rigs revealing.
func (f *failoverNet) settle(t *testing.T, ctx context.Context, ids []uint64) {
	t.Helper()
	reports, err := f.d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		if !r.Agreed || r.Reveals != 3 {
			t.Fatalf("task %d: %s", r.TaskID, r.Summary())
		}
	}
}

// checkChain judges the shared rig's part in tasks by every transaction on chain, read block by
// block: its key sent exactly one commit attempt and one reveal attempt per task (an entry of a
// commitMany or revealMany counts, skipped or not) and at most one draw and one settle attempt,
// none of them reverted; no slash; and no transaction of its key left pending. Two leaders
// sending the same commit, draw or settle would show as two attempts (the second reverting, or
// skipped in a batch), where the contract's events, emitted at most once per task and rig,
// would not.
//
// One revert is accepted, and logged: a draw or settle of the shared key that lost to another
// operator's key's draw or settle of the same task mined in the same block or the one before
// (the head its simulation had not seen yet when the transaction left). The schedule makes it
// rare (rig/pace.go, onTurn: one rank at a time, a late rank a quarter stage delay off the turns'
// beginnings) but cannot rule it out: Robinhood Chain has no pending pool, so two sends that
// reach the sequencer within one block interval both pass simulation, and ranks agree on their
// turns only to within the moments each process saw the stage begin. Anything of our own key
// sent twice is never accepted.
func (f *failoverNet) checkChain(t *testing.T, ctx context.Context, ids []uint64) {
	t.Helper()
	addr := crypto.PubkeyToAddress(f.key.PublicKey)
	// The instances may still be mining a last settle: wait for the key to be quiet.
	var nonce uint64
	for attempt := 0; ; attempt++ {
		pending, err1 := f.client.PendingNonceAt(ctx, addr)
		mined, err2 := f.client.NonceAt(ctx, addr, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if pending == mined {
			nonce = mined
			break
		}
		if attempt > 100 {
			t.Fatalf("transactions of the shared key left pending: nonce %d mined, %d pending", mined, pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
	all := f.chainTxs(t, ctx)
	var sent int
	for _, tx := range all {
		if tx.from == addr {
			sent++
		}
	}
	if uint64(sent) != nonce {
		t.Fatalf("found %d transactions of the shared key on chain, its nonce says %d", sent, nonce)
	}
	faults, lost := judgeShared(all, addr, ids)
	for _, l := range lost {
		t.Log(l)
	}
	for _, fault := range faults {
		t.Error(fault)
	}
	if len(faults) > 0 {
		for _, tx := range all { // who drew and settled what, for the diagnosis
			if tx.method == "draw" || tx.method == "settle" {
				t.Logf("block %d: %s of %v from %s (shared key: %v), reverted: %v", tx.block, tx.method, tx.tasks, tx.from.Hex(), tx.from == addr, tx.reverted)
			}
		}
	}
	logs, err := f.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int), Addresses: []common.Address{f.d.Contract}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range logs {
		if ev, err := f.abi.UnpackSlashedEvent(&logs[i]); err == nil && ev.RigId == f.rigID {
			t.Errorf("the shared rig was slashed on task %d", ev.TaskId)
		}
	}
}

// sentTx is one mined transaction: its sender, block, the contract function it called, the
// tasks it named (each entry of a batch), and whether it reverted.
type sentTx struct {
	hash     common.Hash
	from     common.Address
	block    uint64
	method   string
	tasks    []uint64
	reverted bool
}

// chainTxs reads every transaction, block by block from the genesis to the head, with its
// receipt, and decodes what it called from its call data.
func (f *failoverNet) chainTxs(t *testing.T, ctx context.Context) []sentTx {
	t.Helper()
	chainID, err := f.client.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := f.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(chainID)
	contractABI := f.abi.GetABI()
	var out []sentTx
	for n := uint64(0); n <= head; n++ {
		block, err := f.client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range block.Transactions() {
			sender, err := types.Sender(signer, tx)
			if err != nil {
				continue // not a signed transaction (Nitro's system ones)
			}
			rec, err := f.client.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				t.Fatal(err)
			}
			s := sentTx{hash: tx.Hash(), from: sender, block: n, method: "unknown", reverted: rec.Status != types.ReceiptStatusSuccessful}
			if tx.To() != nil && *tx.To() == f.d.Contract && len(tx.Data()) >= 4 {
				if method, err := contractABI.MethodById(tx.Data()[:4]); err == nil {
					s.method = method.Name
					s.tasks = callTasks(t, method, tx.Data()[4:])
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// callTasks reads the tasks a call to the contract names: every entry of a commitMany or
// revealMany, else its taskId argument.
func callTasks(t *testing.T, method *abi.Method, data []byte) []uint64 {
	t.Helper()
	args, err := method.Inputs.Unpack(data)
	if err != nil {
		t.Fatalf("%s: %v", method.Name, err)
	}
	var ids []uint64
	switch method.Name {
	case "commitMany":
		var v struct {
			Entries    []agentrig.AgentRigCommit
			Signatures [][]byte
		}
		if err := method.Inputs.Copy(&v, args); err != nil {
			t.Fatal(err)
		}
		for _, e := range v.Entries {
			ids = append(ids, e.TaskId.Uint64())
		}
	case "revealMany":
		var v struct {
			Entries    []agentrig.AgentRigReveal
			Signatures [][]byte
		}
		if err := method.Inputs.Copy(&v, args); err != nil {
			t.Fatal(err)
		}
		for _, e := range v.Entries {
			ids = append(ids, e.TaskId.Uint64())
		}
	default:
		if len(method.Inputs) > 0 && method.Inputs[0].Name == "taskId" {
			ids = append(ids, args[0].(*big.Int).Uint64())
		}
	}
	return ids
}

// stages says where the shared rig stood on each task: ordered, drawn, committed, revealed.
func (f *failoverNet) stages(t *testing.T, ctx context.Context, ids []uint64) string {
	t.Helper()
	contract := agentrig.NewContract(f.client, f.d.Contract)
	var out []string
	for _, id := range ids {
		info, err := contract.Task(ctx, new(big.Int).SetUint64(id))
		if err != nil {
			t.Fatal(err)
		}
		stage := "ordered"
		for i, r := range info.RigIds {
			if r != f.rigID {
				continue
			}
			stage = "drawn"
			if info.CommittedMask&(1<<i) != 0 {
				stage = "committed"
			}
			if info.RevealedMask&(1<<i) != 0 {
				stage = "revealed"
			}
		}
		out = append(out, fmt.Sprintf("%d:%s", id, stage))
	}
	return strings.Join(out, " ")
}

// reach waits until the shared rig reached stage on at least one of the tasks.
func (f *failoverNet) reach(t *testing.T, ctx context.Context, ids []uint64, stage string) {
	t.Helper()
	for ctx.Err() == nil {
		if strings.Contains(f.stages(t, ctx, ids), ":"+stage) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the shared rig never reached %q", stage)
}

// sendLines are the log lines of a transaction leaving or being mined (sent is logged at debug).
func sendLines(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		for _, m := range []string{`msg="transaction sent"`, "msg=committed ", "msg=revealed ", "msg=draw ", "msg=settle "} {
			if strings.Contains(line, m) {
				out = append(out, line)
			}
		}
	}
	return out
}

func killLeaderOver(t *testing.T, instances, rounds, perRound int) {
	// The heaviest tests of the package, run beside each other (t.Parallel): two instances over
	// four rounds took 205 s under -race at a load of 10-15 on 2 cores, so they get more than
	// testbound.Cap.
	ctx, cancel := testbound.Context(t, 15*time.Minute)
	defer cancel()
	f := newFailoverNet(t, ctx)
	var procs []*rigProc
	for range instances {
		procs = append(procs, f.start(t, false))
	}
	symbols := []string{"NVDA", "TSLA", "SPY", "NVDA", "TSLA", "SPY"}[:perRound]
	var all []uint64
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	for round := range rounds {
		leader := f.leader(t, ctx, procs, nil)
		ids := f.order(t, ctx, symbols...)
		all = append(all, ids...)
		// A moment of the tasks' life, in turn: before our commit, between commit and reveal,
		// during the reveals; then a random moment after it.
		target := []string{"drawn", "committed", "revealed"}[round%3]
		f.reach(t, ctx, ids, target)
		pause := time.Duration(rnd.IntN(300)) * time.Millisecond
		time.Sleep(pause)
		if err := leader.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-leader.done
		t.Logf("round %d: killed leader %s %s after a task reached %q; the tasks then: %s", round+1, leader.name, pause, target, f.stages(t, ctx, ids))
		procs = append(procs, f.start(t, false)) // its replacement joins as a follower
		f.settle(t, ctx, ids)
	}
	f.checkChain(t, ctx, all)
}

// Two instances, the leader killed -9 at a random moment of every round of tasks: every task
// is answered by the shared rig exactly once, in its windows.
func TestFailoverKillTheLeaderTwoInstances(t *testing.T) {
	t.Parallel() // each has its own devnet and cluster; they mostly wait on blocks
	killLeaderOver(t, 2, 4, 5)
}

// Three instances, the same.
func TestFailoverKillTheLeaderThreeInstances(t *testing.T) {
	t.Parallel() // each has its own devnet and cluster; they mostly wait on blocks
	killLeaderOver(t, 3, 3, 3)
}

// The leader frozen (SIGSTOP) past its lease: a follower takes over and answers; the old leader,
// woken (SIGCONT), sends nothing and follows.
func TestFailoverFrozenLeaderSendsNothingWhenItWakes(t *testing.T) {
	t.Parallel() // each has its own devnet and cluster; they mostly wait on blocks
	ctx, cancel := testContext(t)
	defer cancel()
	f := newFailoverNet(t, ctx)
	procs := []*rigProc{f.start(t, true), f.start(t, true)}
	old := f.leader(t, ctx, procs, nil)
	ids := f.order(t, ctx, "NVDA", "TSLA", "SPY")
	time.Sleep(300 * time.Millisecond) // let it get into the tasks
	if err := old.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	next := f.leader(t, ctx, procs, old)
	f.settle(t, ctx, ids)
	mark := len(old.stderr.String())
	if err := old.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// Awake, it looks at the chain again and finds it follows.
	for ctx.Err() == nil && old.readyz() != "follower, at the head" {
		time.Sleep(50 * time.Millisecond)
	}
	more := f.order(t, ctx, "SPY")
	f.settle(t, ctx, more)
	if f.leader(t, ctx, procs, nil) != next {
		t.Fatal("the lead moved back to the woken instance")
	}
	after := old.stderr.String()[mark:]
	if !strings.Contains(after, "lease lost") {
		t.Fatalf("the woken leader did not notice it lost the lease:\n%s", tail(after, 3000))
	}
	for _, line := range strings.Split(after, "\n") {
		if strings.Contains(line, "fenced") {
			t.Logf("woken leader: %s", line) // what it would have sent and did not
		}
	}
	if lines := sendLines(after); len(lines) > 0 {
		t.Fatalf("the old leader sent after it woke:\n%s", strings.Join(lines, "\n"))
	}
	f.checkChain(t, ctx, append(ids, more...))
}

// The database stops mid-run and comes back: the instances wait (sending nothing they could not
// journal) and resume; every task is answered once.
func TestFailoverDatabaseRestartMidRun(t *testing.T) {
	t.Parallel() // each has its own devnet and cluster; they mostly wait on blocks
	ctx, cancel := testContext(t)
	defer cancel()
	f := newFailoverNet(t, ctx)
	procs := []*rigProc{f.start(t, false), f.start(t, false)}
	f.leader(t, ctx, procs, nil)
	ids := f.order(t, ctx, "NVDA", "TSLA", "SPY")
	if err := f.cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the outage: longer than the lease
	for _, p := range procs {
		if r := p.readyz(); r == "leader" {
			t.Errorf("instance %s still leads with the database down", p.name)
		}
	}
	if err := f.cluster.Start(); err != nil {
		t.Fatal(err)
	}
	f.settle(t, ctx, ids)
	more := f.order(t, ctx, "TSLA")
	f.settle(t, ctx, more)
	f.checkChain(t, ctx, append(ids, more...))
	for _, p := range procs {
		if !p.running() {
			t.Errorf("instance %s exited during the outage", p.name)
		}
	}
}
