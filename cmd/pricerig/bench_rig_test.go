package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/rig/devnet"
)

// benchLayout is issue 13's benchmark layout: five rig processes, the first two relayed, the
// other three sending their own transactions, the last of them holding two rigs.
var benchLayout = []struct {
	rigs    int
	relayed bool
}{{1, true}, {1, true}, {1, false}, {1, false}, {2, false}}

// BenchmarkRigFiveProcesses runs 100 job-2 tasks over five real `pricerig rig` processes on a
// devnet (simulated chain over JSON-RPC, 250 ms blocks, the provider simulator answering at
// once) and counts from the chain's blocks and receipts, not the rigs' journals: transactions
// mined per settled task, reverted ones, gas per rig-answer in each mode against a lone
// rig's unavoidable calls (devnet.Economics.LoneReference), and the time from each task's draw to its last commit. scripts/bench-rig prints it.
func BenchmarkRigFiveProcesses(b *testing.B) {
	const tasks, quorum = 100, 3
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	spec, err := os.ReadFile("../../sources.yaml")
	rigSpec := instantSpec(b) // the last closed minute, trusted at once like the devnet's (Instant)
	if err != nil {
		b.Fatal(err)
	}
	rigCount, relayers := 0, 0
	for _, p := range benchLayout {
		rigCount += p.rigs
		if p.relayed {
			relayers++
		}
	}
	d, err := devnet.Start(ctx, devnet.Options{Spec: spec, Layout: []int{}, FundedKeys: rigCount + relayers, Stake: tasks, Instant: true})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	operators, spare := d.FundedKeys[:rigCount], d.FundedKeys[rigCount:]
	for _, k := range operators {
		if err := d.RegisterRig(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
	hexKey := func(k *ecdsa.PrivateKey) string { return hex.EncodeToString(crypto.FromECDSA(k)) }
	mode := map[common.Address]string{}
	head, err := d.Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	// BENCH_RIG_LOGS=dir keeps each process's debug log and the mined transactions with their
	// blocks' arrival times there, to see where a slow task's time went.
	keep := os.Getenv("BENCH_RIG_LOGS")
	var procs []*rigProc
	next := 0
	for i, p := range benchLayout {
		proc := &rigProc{name: fmt.Sprintf("p%d", i+1), done: make(chan struct{})}
		args := []string{"rig", "--network", "devnet", "--rpc", d.Chain.URL, "--contract", d.Contract.Hex(), "--sim", d.SimURL,
			"--config", rigSpec, "--journal", filepath.Join(dir, proc.name+".db"), "--from-block", fmt.Sprint(head)}
		env := append(os.Environ(), asMain+"=1")
		if keep != "" {
			args = append(args, "-v")
		}
		m := "direct"
		if p.relayed {
			m = "relayed"
			r := spare[0]
			spare = spare[1:]
			args = append(args, "--relayer-key-env", "BENCH_RELAYER")
			env = append(env, "BENCH_RELAYER="+hexKey(r))
			mode[crypto.PubkeyToAddress(r.PublicKey)] = m
		}
		for j := range p.rigs {
			k := operators[next]
			next++
			v := fmt.Sprintf("BENCH_OPERATOR_%d", j)
			args = append(args, "--key-env", v)
			env = append(env, v+"="+hexKey(k))
			mode[crypto.PubkeyToAddress(k.PublicKey)] = m
		}
		proc.cmd = exec.Command(pricerigBinary(b), args...)
		proc.cmd.Env = env
		proc.cmd.Stderr = &proc.stderr
		proc.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := proc.cmd.Start(); err != nil {
			b.Fatal(err)
		}
		go func() { _ = proc.cmd.Wait(); close(proc.done) }()
		procs = append(procs, proc)
	}
	defer func() {
		for _, p := range procs {
			if p.running() {
				_ = p.cmd.Process.Kill()
				<-p.done
			}
			if b.Failed() {
				b.Logf("%s log (tail):\n%s", p.name, tail(p.stderr.String(), 3000))
			}
			if keep != "" {
				_ = os.WriteFile(filepath.Join(keep, p.name+".log"), []byte(p.stderr.String()), 0o644)
			}
		}
	}()
	// Every process runs and follows new heads by subscription before the orders go out.
	for _, p := range procs {
		for !strings.Contains(p.stderr.String(), "following new heads by subscription") {
			if !p.running() {
				b.Fatalf("%s exited: %s", p.name, tail(p.stderr.String(), 3000))
			}
			select {
			case <-ctx.Done():
				b.Fatalf("%s never subscribed to new heads: %s", p.name, tail(p.stderr.String(), 3000))
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	clock, err := d.Chain.WatchHeads(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer clock.Close()
	symbols := make([]string, tasks)
	for i := range symbols {
		symbols[i] = []string{"NVDA", "TSLA", "SPY"}[i%3]
	}
	b.ResetTimer()
	start, err := d.Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := d.Order(ctx, symbols, devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions))
	if err != nil {
		b.Fatal(err)
	}
	last, err := d.WaitSettled(ctx, start+1, ids)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	txs, err := d.Mined(ctx, start+1, last)
	if err != nil {
		b.Fatal(err)
	}
	timelines, err := d.Timelines(ctx, start+1, last, ids)
	if err != nil {
		b.Fatal(err)
	}
	if keep != "" {
		var sb strings.Builder
		for _, tx := range txs {
			at, _ := clock.At(tx.Block)
			fmt.Fprintf(&sb, "%d\t%s\t%s\t%s\t%v\t%v\t%s\n", tx.Block, at.UTC().Format("15:04:05.000"), tx.From, tx.Method, tx.Tasks, tx.Reverted, tx.Hash)
		}
		if err := os.WriteFile(filepath.Join(keep, "mined.tsv"), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var lat devnet.LatencyReport
	if err := lat.Add(clock, timelines); err != nil {
		b.Fatal(err)
	}
	settled := 0
	for _, tl := range timelines {
		if tl.Settled != 0 {
			settled++
		}
	}
	e := devnet.Account(txs, func(a common.Address) string { return mode[a] })
	// The reference's commit and reveal are lone ones, each rig's own transaction: batching leaves a
	// run with few or none mined, so they are measured by simulating them on top of the first
	// task's draw block (devnet.SoloAnswerGas, the mean over its three rigs).
	soloCommit, soloReveal, err := d.SoloAnswerGas(ctx, ids[0], timelines[ids[0]].Drawn)
	if err != nil {
		b.Fatal(err)
	}
	lone := e.LoneReference(soloCommit, soloReveal, quorum)
	b.ReportMetric(float64(soloCommit), "gas/solo-commit")
	b.ReportMetric(float64(soloReveal), "gas/solo-reveal")
	per := func(n int) float64 { return float64(n) / float64(settled) }
	b.ReportMetric(float64(settled), "settled")
	b.ReportMetric(per(e.Mined), "txs/task")
	b.ReportMetric(per(e.Reverted), "reverted/task")
	b.ReportMetric(e.GasPerAnswer["direct"], "gas/answer-direct")
	b.ReportMetric(e.GasPerAnswer["relayed"], "gas/answer-relayed")
	b.ReportMetric(lone, "gas/answer-lone-ref")
	b.ReportMetric(float64(e.Answers["direct"]), "answers-direct")
	b.ReportMetric(float64(e.Answers["relayed"]), "answers-relayed")
	for _, call := range []string{"draw", "commit", "reveal", "settle", "commitMany/entry", "revealMany/entry"} {
		b.ReportMetric(float64(e.CallGas[call]), "gas/"+strings.ReplaceAll(call, "/", "-"))
	}
	b.ReportMetric(float64(lat.P50().Milliseconds()), "p50-ms/draw-commit")
	b.ReportMetric(float64(lat.Max().Milliseconds()), "max-ms/draw-commit")
	b.ReportMetric(lat.P50Blocks(), "p50-blocks/draw-commit")
	b.ReportMetric(float64(lat.MaxBlocks()), "max-blocks/draw-commit")
	b.ReportMetric(float64(lat.AllCommitted().Milliseconds()), "ms/all-committed")
}
