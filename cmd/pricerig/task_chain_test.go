package main

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/devnet"
	"github.com/pricerig/pricerig/rig/task"
)

// TestMalformedTaskOnDevnetKeepSettlesOnZero is issue 18's "done when": on `pricerig devnet
// --keep`, a griefer orders over JSON-RPC, through the contract's binding, a task for a minute a
// day ahead (an input only the chain's commit window makes refusable). `pricerig task --task`
// reads it from the chain and says it would be answered 0; the devnet's three rigs answer 0 and
// the task settles early in agreement on 0.
func TestMalformedTaskOnDevnetKeepSettlesOnZero(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	var out, errOut syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"devnet", "--keep", "--symbols", "SPY", "--config", "../../sources.yaml", "--instant"}, strings.NewReader(""), &out, &errOut)
	}()
	defer func() {
		cancel()
		<-done
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
	var rpcURL, contractHex, keyHex string
	for _, line := range strings.Split(errOut.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "rpc:":
			rpcURL = f[1]
		case len(f) == 2 && f[0] == "contract:":
			contractHex = f[1]
		case len(f) == 2 && f[0] == "export" && strings.HasPrefix(f[1], "PRICERIG_DEV_KEY="):
			keyHex = strings.TrimPrefix(f[1], "PRICERIG_DEV_KEY=")
		}
	}
	key, err := crypto.HexToECDSA(keyHex)
	if err != nil {
		t.Fatalf("funded key %q in:\n%s", keyHex, errOut.String())
	}
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	addr := common.HexToAddress(contractHex)
	contract := agentrig.NewContract(client, addr)
	job, err := contract.Job(ctx, devnet.PriceJobID)
	if err != nil {
		t.Fatal(err)
	}

	// The griefer's order: a valid symbol, a minute a day ahead, its own correct hash.
	minute := time.Now().UTC().Truncate(time.Minute).Add(24 * time.Hour)
	uri := `data:application/json,{"symbol":"SPY","minute":"` + minute.Format(time.RFC3339) + `"}`
	opts := bind.NewKeyedTransactor(key, big.NewInt(devnet.ChainID))
	opts.Context, opts.Value = ctx, job.Price
	abi := agentrig.NewAgentRig()
	start := time.Now()
	tx, err := bind.Transact(abi.Instance(client, addr), opts, abi.PackOrder(devnet.PriceJobID, task.InputHash(uri), uri))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := bind.WaitMined(ctx, client, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	var taskID *big.Int
	for _, l := range rec.Logs {
		if ev, err := abi.UnpackTaskOrderedEvent(l); err == nil {
			taskID = ev.TaskId
		}
	}
	if taskID == nil {
		t.Fatal("no TaskOrdered event")
	}
	// Once drawn, the chain has the commit window the last rule needs.
	for {
		info, err := contract.Task(ctx, taskID)
		if err != nil {
			t.Fatal(err)
		}
		if info.CommitDeadline != 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the task was never drawn")
		case <-time.After(20 * time.Millisecond):
		}
	}
	code, stdout, stderr := runCLI(t, "task", "--rpc", rpcURL, "--contract", contractHex, "--task", taskID.String())
	var got taskOutput
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("task: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	if code != exitBadInput || !got.Refused || got.Rule != "window" || !got.WindowChecked || got.TaskID != taskID.Uint64() ||
		got.Symbol != "" || !strings.HasPrefix(got.Verdict, "this task would be answered 0: ") || got.CommitDeadline == "" {
		t.Fatalf("task --task: exit %d %+v", code, got)
	}

	for {
		ans, err := contract.AnswerOf(ctx, taskID)
		if err != nil {
			t.Fatal(err)
		}
		if agentrig.Phase(ans.Status) == agentrig.PhaseSettled {
			if !ans.Agreed || ans.Agree != 3 || ans.Reveals != 3 || numeric.AnswerInt(ans.Answer).Sign() != 0 {
				t.Fatalf("settled: %+v, want agreement on 0 by all three rigs", ans)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the malformed task never settled")
		case <-time.After(50 * time.Millisecond):
		}
	}
	// Early: settled before the commit window it was drawn with would have closed.
	info, err := contract.Task(ctx, taskID)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: rec.BlockNumber, Addresses: []common.Address{addr},
		Topics: [][]common.Hash{{abi.GetABI().Events["Settled"].ID}, {common.BigToHash(taskID)}}})
	if err != nil || len(logs) != 1 {
		t.Fatalf("Settled logs %d, %v", len(logs), err)
	}
	settled, err := client.HeaderByNumber(ctx, new(big.Int).SetUint64(logs[0].BlockNumber))
	if err != nil {
		t.Fatal(err)
	}
	if settled.Time >= info.CommitDeadline {
		t.Fatalf("settled at chain time %d, not before the commit deadline %d", settled.Time, info.CommitDeadline)
	}
	t.Logf("the malformed task settled in agreement on 0 %s after it was ordered (wall clock, for the record)", time.Since(start).Round(100*time.Millisecond))
}

func TestTaskCommandWithoutRefusalAnswerSaysRigsSkip(t *testing.T) {
	spec, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(spec), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "refusal_answer:") {
			kept = append(kept, l)
		}
	}
	path := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "task", "--config", path, "--input-uri", `data:application/json,{"symbol":"AAPL","minute":1795793400}`)
	var got taskOutput
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if code != exitBadInput || !got.Refused || got.RefusalAnswer != "" || got.Rule != "symbol" ||
		!strings.Contains(got.Verdict, "no refusal_answer, so rigs skip it") || !strings.Contains(stderr, "rigs skip it") {
		t.Fatalf("exit %d %+v stderr %q", code, got, stderr)
	}
}
