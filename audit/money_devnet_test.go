package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/testbound"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/devnet"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources"
)

// On a devnet whose gas costs more than a task pays (every transaction priced at 100 gwei for
// the whole run: a commit alone costs more than the 0.000003 ETH a rig earns), the audit of each rig process's journal
// reports every rig `unprofitable`, with the margin its ledger holds, and the relayed process's
// journal as a whole too (its relayer paid the draws and settles).
func TestAuditFindsUnprofitableRigsOnADevnetWithDearGas(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	// A cap against a hang, not a timing: under -race on a loaded 2-core machine one devnet run
	// took 115-125 s (CPU-starved, not stuck), so two minutes failed a run that was going fine.
	ctx, _ := testbound.Context(t, testbound.Cap)
	spec, err := os.ReadFile("../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := devnet.Start(ctx, devnet.Options{Instant: true, Spec: spec, L1Interval: time.Second,
		// GasPrice, not a genesis BaseFee: the base fee falls 12.5 % with every empty heartbeat
		// block, so a run slowed by a loaded machine (100+ s) priced the relayed rig's commit and
		// reveal below what it earned and its margin came out positive.
		GasPrice: big.NewInt(100_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ids, err := d.Order(ctx, []string{"NVDA", "TSLA", "SPY"}, devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Wait(ctx, ids); err != nil {
		t.Fatal(err)
	}
	for i, r := range d.Runners {
		j, err := journal.OpenJournal(d.JournalPath(i))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		// Wait on the real condition: every entry final and every payout journaled.
		for {
			open, err := j.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			l, err := j.Ledger(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			paid := true
			for _, id := range r.RigIDs() {
				m, ok := l.Rig(id)
				paid = paid && ok && m.Earned.Sign() > 0
			}
			if len(open) == 0 && paid {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("process %d: the journal never finished: %d open", i+1, len(open))
			case <-time.After(50 * time.Millisecond):
			}
		}
		a, err := New(Config{Spec: d.Spec, Deps: feeds.Deps{Deps: sources.Deps{}}, Since: 15 * time.Minute, Journal: j})
		if err != nil {
			t.Fatal(err)
		}
		rep := a.Run(ctx)
		if c, _ := rep.Check(CheckRigName); c.State != CheckFindings {
			t.Fatalf("process %d: rig check %+v", i+1, c)
		}
		l, err := j.Ledger(ctx, rep.Window.From)
		if err != nil {
			t.Fatal(err)
		}
		found := map[uint64]Finding{}
		for _, f := range rep.Findings {
			if f.Name == Unprofitable {
				found[f.RigID] = f
			}
		}
		for _, id := range r.RigIDs() {
			m, _ := l.Rig(id)
			f, ok := found[id]
			if !ok || m.Margin().Sign() >= 0 || f.Value != FormatETH(m.Margin()) || f.Count != len(ids) {
				t.Errorf("process %d rig %d: margin %s ETH (gas %s, earned %s), finding %+v", i+1, id, FormatETH(m.Margin()),
					FormatETH(m.GasPaid), FormatETH(m.Earned), f)
			}
			t.Logf("process %d rig %d: gas %s ETH, earned %s ETH, margin %s ETH", i+1, id, FormatETH(m.GasPaid), FormatETH(m.Earned), FormatETH(m.Margin()))
		}
		if d.RelayerOf(i) != nil {
			if f, ok := found[0]; !ok || f.Value != FormatETH(l.Total.Margin()) {
				t.Errorf("process %d (relayed): the journal's total margin %s ETH, finding %+v", i+1, FormatETH(l.Total.Margin()), f)
			}
		}
	}
}

// staleNode is a JSON-RPC proxy in front of the devnet that serves one rig process as a lagging
// node would: taskOf keeps answering what it said first (the task still waiting for its draw),
// and a draw simulates and estimates fine. The process then sends draws the chain has already
// seen, which are mined reverted: gas paid for nothing.
type staleNode struct {
	target       string
	taskOf, draw string // the functions' selectors, as 0x-hex
	mu           sync.Mutex
	cache        map[string]json.RawMessage
}

// ServeHTTP answers one request or a JSON-RPC batch (the rig reads every open task's taskOf in
// one batch), each element as serve would alone.
func (s *staleNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var out []byte
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err = json.Unmarshal(trimmed, &batch); err == nil {
			answers := make([]json.RawMessage, len(batch))
			for i, one := range batch {
				if answers[i], err = s.serve(one); err != nil {
					break
				}
			}
			out, err = json.Marshal(answers)
		}
	} else {
		out, err = s.serve(body)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// serve answers one JSON-RPC request: taskOf from its cache, a draw's simulation and estimate
// as fine, anything else from the node.
func (s *staleNode) serve(body []byte) (json.RawMessage, error) {
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	answer := func(result json.RawMessage) (json.RawMessage, error) {
		return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	if json.Unmarshal(body, &req) == nil && len(req.Params) > 0 && (req.Method == "eth_call" || req.Method == "eth_estimateGas") {
		var call struct {
			Data  string `json:"data"`
			Input string `json:"input"`
		}
		_ = json.Unmarshal(req.Params[0], &call)
		data := call.Input + call.Data
		switch {
		case strings.HasPrefix(data, s.draw) && req.Method == "eth_estimateGas":
			return answer(json.RawMessage(`"0x100000"`))
		case strings.HasPrefix(data, s.draw) && len(req.Params) > 1 && string(req.Params[1]) == `"pending"`:
			return answer(json.RawMessage(`"0x"`))
		case strings.HasPrefix(data, s.taskOf) && req.Method == "eth_call":
			s.mu.Lock()
			cached, ok := s.cache[data]
			s.mu.Unlock()
			if ok {
				return answer(cached)
			}
			res, err := s.forward(body)
			if err != nil {
				return nil, err
			}
			var out struct {
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(res, &out) == nil && len(out.Result) > 0 {
				s.mu.Lock()
				s.cache[data] = out.Result
				s.mu.Unlock()
			}
			return res, nil
		}
	}
	return s.forward(body)
}

func (s *staleNode) forward(body []byte) ([]byte, error) {
	resp, err := http.Post(s.target, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// A rig process behind a lagging node sends draws the chain has already seen; each is mined
// reverted, journaled as reverted with the fee its receipt shows, and reported `wasted_gas` by
// the audit of that process's journal.
func TestAuditFindsTheWastedGasOfARigBehindAStaleNode(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	// A cap against a hang, not a timing: under -race on a loaded 2-core machine one devnet run
	// took 115-125 s (CPU-starved, not stuck), so two minutes failed a run that was going fine.
	ctx, _ := testbound.Context(t, testbound.Cap)
	spec, err := os.ReadFile("../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	binding := agentrig.NewAgentRig()
	stale := &staleNode{cache: map[string]json.RawMessage{},
		taskOf: hexutil.Encode(binding.PackTaskOf(big.NewInt(1))[:4]), draw: hexutil.Encode(binding.PackDraw(big.NewInt(1))[:4])}
	var proxy *httptest.Server
	d, err := devnet.Start(ctx, devnet.Options{Instant: true, Spec: spec, L1Interval: time.Second, Layout: []int{1, 1, 1}, RPCURL: func(i int, url string) string {
		if i != 0 {
			return url
		}
		stale.target = url
		proxy = httptest.NewServer(stale)
		return proxy.URL
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { d.Close(); proxy.Close() }() // the rigs stop before their node does
	if _, err := d.Order(ctx, []string{"NVDA"}, devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions)); err != nil {
		t.Fatal(err)
	}
	j, err := journal.OpenJournal(d.JournalPath(0))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var reverted []journal.TxRecord
	for len(reverted) < 2 {
		l, err := j.Ledger(ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		reverted = l.Reverted
		select {
		case <-ctx.Done():
			t.Fatalf("no reverted draw journaled: %d", len(reverted))
		case <-time.After(50 * time.Millisecond):
		}
	}
	client, err := d.Chain.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	a, err := New(Config{Spec: d.Spec, Deps: feeds.Deps{Deps: sources.Deps{}}, Since: 15 * time.Minute, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	rep := a.Run(ctx)
	wasted := map[string]Finding{}
	for _, f := range rep.Findings {
		if f.Name == WastedGas {
			wasted[f.Message] = f
		}
	}
	for _, tx := range reverted {
		rec, err := client.TransactionReceipt(ctx, tx.Hash)
		if err != nil {
			t.Fatal(err)
		}
		fee := new(big.Int).Mul(new(big.Int).SetUint64(rec.GasUsed), rec.EffectiveGasPrice)
		if rec.Status != 0 || tx.Purpose != "draw" || tx.Fee.Cmp(fee) != 0 {
			t.Errorf("journaled reverted %s %s: status %d on chain, fee %s, journal %s", tx.Purpose, tx.Hash.Hex(), rec.Status, fee, tx.Fee)
		}
		found := false
		for msg, f := range wasted {
			if strings.Contains(msg, tx.Hash.Hex()) && f.Value == FormatETH(fee) && f.TaskID == 1 && f.Severity == Warn {
				found = true
			}
		}
		if !found {
			t.Errorf("no wasted_gas finding for %s (fee %s wei) in %v", tx.Hash.Hex(), fee, wasted)
		}
	}
	t.Logf("%d reverted draws journaled; %d wasted_gas findings", len(reverted), len(wasted))
}
