package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/devnet"
)

// The devnet command as shipped: Robinhood Chain's 12 s L1 interval and the seed's windows (the
// other devnet command tests run it on testL1Interval).
func TestDevnetCommandSettlesAndExitsZero(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	code, out, stderr := runCLI(t, "devnet", "--json", "--symbols", "nvda,spy", "--config", "../../sources.yaml", "--instant")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
	}
	var res struct {
		Agreed bool `json:"agreed"`
		Tasks  []struct {
			TaskID  uint64 `json:"task_id"`
			Phase   string `json:"phase"`
			Agreed  bool   `json:"agreed"`
			Answer  string `json:"answer"`
			Reveals int    `json:"reveals"`
			Rigs    []struct {
				RigID uint64 `json:"rig_id"`
			} `json:"rigs"`
		} `json:"tasks"`
		Rigs []struct {
			Relayed bool `json:"relayed"`
		} `json:"rig_processes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if !res.Agreed || len(res.Tasks) != 2 || len(res.Rigs) != 3 || !res.Rigs[2].Relayed || res.Rigs[0].Relayed {
		t.Fatalf("%+v", res)
	}
	for _, task := range res.Tasks {
		if !task.Agreed || task.Phase != "settled" || task.TaskID == 0 || task.Reveals != 3 || len(task.Rigs) != 3 || task.Rigs[0].RigID == 0 || !strings.Contains(task.Answer, ".") {
			t.Fatalf("task %+v", task)
		}
	}
}

func TestDevnetCommandRejectsABadMinute(t *testing.T) {
	code, _, stderr := runCLI(t, "devnet", "--minute", "2026-11-27T15:30:30Z")
	if code != exitBadInput || !strings.Contains(stderr, "--minute") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestDevnetCommandRejectsABadBaseFee(t *testing.T) {
	for _, fee := range []string{"abc", "0", "-1", "0.0000000001", "10001", "1e99"} {
		code, _, stderr := runCLI(t, "devnet", "--base-fee", fee)
		if code != exitBadInput || !strings.Contains(stderr, "--base-fee") {
			t.Fatalf("--base-fee %s: exit %d: %s", fee, code, stderr)
		}
	}
	for text, want := range map[string]int64{"0.01": 10_000_000, "1": 1_000_000_000, "0.000000001": 1, "2.5": 2_500_000_000} {
		if got, err := parseGwei(text); err != nil || got.Int64() != want {
			t.Fatalf("parseGwei(%q) = %v, %v; want %d wei", text, got, err, want)
		}
	}
}

func TestDevnetCommandReadsTheL1BaseFee(t *testing.T) {
	for _, fee := range []string{"abc", "-1", "0.0000000001", "10001"} {
		code, _, stderr := runCLI(t, "devnet", "--l1-base-fee", fee)
		if code != exitBadInput || !strings.Contains(stderr, "--l1-base-fee") {
			t.Fatalf("--l1-base-fee %s: exit %d: %s", fee, code, stderr)
		}
	}
	for text, want := range map[string]int64{"0": 0, "0.00": 0, "0.02": 20_000_000, "1": 1_000_000_000} {
		if got, err := parseGweiOrZero(text); err != nil || got.Int64() != want {
			t.Fatalf("parseGweiOrZero(%q) = %v, %v; want %d wei", text, got, err, want)
		}
	}
	if def := newDevnetCmd(nil).Flags().Lookup("l1-base-fee").DefValue; def != "0.015" {
		t.Fatalf("--l1-base-fee defaults to %s", def)
	} else if got, _ := parseGweiOrZero(def); got.Cmp(devnet.DefaultL1BaseFee) != 0 {
		t.Fatalf("--l1-base-fee's default %s gwei is %s wei, the devnet's default %s", def, got, devnet.DefaultL1BaseFee)
	}
}

// --keep leaves the chain up after the tasks settle, prints how to attach, and stops on cancel.
func TestDevnetKeepServesUntilCancelled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	var out, errOut syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"devnet", "--keep", "--symbols", "SPY", "--config", "../../sources.yaml", "--instant", "--l1-interval", testL1Interval.String()}, strings.NewReader(""), &out, &errOut)
	}()
	for !strings.Contains(errOut.String(), "kept up until Ctrl-C") {
		select {
		case code := <-done:
			t.Fatalf("devnet --keep exited %d before keeping:\n%s\n%s", code, out.String(), errOut.String())
		case <-ctx.Done():
			t.Fatal("devnet --keep never said it was kept up")
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The printed RPC URL serves the chain with the contract deployed.
	var rpcURL, contract string
	for _, line := range strings.Split(errOut.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "rpc:" {
			rpcURL = f[1]
		}
		if len(f) == 2 && f[0] == "contract:" {
			contract = f[1]
		}
	}
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		t.Fatalf("rpc %q: %v", rpcURL, err)
	}
	defer client.Close()
	code, err := client.CodeAt(ctx, common.HexToAddress(contract), nil)
	if err != nil || len(code) == 0 {
		t.Fatalf("no contract at %s: %v", contract, err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("devnet --keep exited %d after cancel:\n%s", code, errOut.String())
	}
}

// The commands `devnet --keep` prints work as printed: a new user registers a fourth operator,
// runs its rig, orders tasks with --wait and sees them answered, reads its status and withdraws
// its earnings.
func TestDevnetKeepPrintsCommandsThatWork(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	var out, errOut syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"devnet", "--keep", "--symbols", "SPY", "--funded-keys", "2", "--config", "../../sources.yaml", "--instant", "--l1-interval", testL1Interval.String()}, strings.NewReader(""), &out, &errOut)
	}()
	for !strings.Contains(errOut.String(), "pricerig operator withdraw") {
		select {
		case code := <-done:
			t.Fatalf("devnet --keep exited %d before keeping:\n%s\n%s", code, out.String(), errOut.String())
		case <-ctx.Done():
			t.Fatal("devnet --keep never printed its commands")
		case <-time.After(20 * time.Millisecond):
		}
	}
	printed := map[string][]string{}
	keys := 0
	for _, line := range strings.Split(errOut.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && strings.HasPrefix(f[0], "PRICERIG_DEV_KEY") && strings.Contains(f[0], "="):
			keys++
		case len(f) == 2 && f[0] == "export":
			name, value, _ := strings.Cut(f[1], "=")
			t.Setenv(name, value)
		case len(f) > 2 && f[0] == "./pricerig":
			printed[strings.Join(f[1:3], " ")] = f[1:]
		}
	}
	if keys != 2 {
		t.Fatalf("want 2 funded keys printed:\n%s", errOut.String())
	}
	code, stdout, stderr := runCLI(t, printed["operator register"]...)
	if code != 0 || !strings.Contains(stdout, "rig 4 registered on job 2") {
		t.Fatalf("register as printed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rigCtx, stopRig := context.WithCancel(ctx)
	var rigErr syncbuf.Buffer
	rigDone := make(chan int)
	go func() {
		rigDone <- run(rigCtx, printed["rig --network"], strings.NewReader(""), &syncbuf.Buffer{}, &rigErr)
	}()
	code, stdout, stderr = runCLI(t, printed["order NVDA"]...)
	if code != 0 || strings.Count(stdout, "settled, agreed") != 3 {
		t.Fatalf("order as printed: exit %d\n%s\n%s\nrig: %s", code, stdout, stderr, rigErr.String())
	}
	code, stdout, stderr = runCLI(t, printed["operator status"]...)
	if code != 0 || !strings.Contains(stdout, "rig 4  job 2  active") {
		t.Fatalf("status as printed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Three tasks over four rigs: rig 4 is in each draw with chance 3/4. What it earned, it
	// withdraws; with nothing earned the simulation refuses (NothingToWithdraw) and nothing is sent.
	earned := !strings.Contains(stdout, "tasks: 0 answered")
	code, stdout, stderr = runCLI(t, printed["operator withdraw"]...)
	if earned && (code != 0 || !strings.Contains(stdout, "withdrew")) || !earned && (code != exitFailure || !strings.Contains(stderr, "NothingToWithdraw")) {
		t.Fatalf("withdraw as printed (earned %v): exit %d\n%s\n%s", earned, code, stdout, stderr)
	}
	stopRig()
	<-rigDone
	cancel()
	<-done
}

// --rigs 0 starts a chain with the jobs and no rigs (nothing ordered), with the windows and the
// number of funded keys asked for.
func TestDevnetWithoutRigsTakesItsWindowsAndKeys(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	var out, errOut syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"devnet", "--keep", "--rigs", "0", "--funded-keys", "3", "--commit-window", "30s", "--reveal-window", "45s",
			"--config", "../../sources.yaml", "--instant"}, strings.NewReader(""), &out, &errOut)
	}()
	for !strings.Contains(errOut.String(), "pricerig operator withdraw") {
		select {
		case code := <-done:
			t.Fatalf("devnet exited %d:\n%s\n%s", code, out.String(), errOut.String())
		case <-ctx.Done():
			t.Fatal("devnet --keep never printed its commands")
		case <-time.After(20 * time.Millisecond):
		}
	}
	var rpcURL, contract string
	for _, line := range strings.Split(errOut.String(), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "rpc:" {
			rpcURL = f[1]
		} else if len(f) == 2 && f[0] == "contract:" {
			contract = f[1]
		}
	}
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := agentrig.NewContract(client, common.HexToAddress(contract))
	commit, reveal, err := c.Windows(ctx)
	if err != nil || commit != 30*time.Second || reveal != 45*time.Second {
		t.Fatalf("windows %s %s %v", commit, reveal, err)
	}
	job, err := c.Job(ctx, 2)
	if err != nil || job.ActiveRigs.Sign() != 0 {
		t.Fatalf("job 2: %+v %v", job, err)
	}
	if !strings.Contains(out.String(), "nothing ordered") || strings.Count(errOut.String(), "PRICERIG_DEV_KEY") < 3+1 ||
		!strings.Contains(errOut.String(), "PRICERIG_DEV_KEY3=") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after cancel", code)
	}
}
