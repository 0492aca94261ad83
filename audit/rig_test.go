package audit

import (
	"context"
	"math/big"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/journal"
)

// task is one journal entry a test writes through the journal's own API.
type task struct {
	id     uint64
	to     journal.State
	update func(*journal.Entry)
}

// writeJournal records every task's answer (price 180.00, committed against a median of
// 180.00) and advances it, the way the runner does.
func writeJournal(t *testing.T, path string, minute time.Time, tasks []task) *journal.DBJournal {
	t.Helper()
	j, err := journal.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx := context.Background()
	price := numeric.MustPrice("180.00")
	for _, tk := range tasks {
		e := journal.Entry{
			TaskID: tk.id, RigID: 7, Symbol: "NVDA", Minute: minute, Price: price, Answer: price.Answer(),
			Salt: [32]byte{byte(tk.id)}, ExpectedMedian: price, CommitDeadline: minute.Add(10 * time.Minute),
		}
		if _, err := j.RecordAnswer(ctx, e); err != nil {
			t.Fatal(err)
		}
		if tk.to != journal.StateAnswered {
			if err := j.Advance(ctx, tk.id, 7, tk.to, tk.update); err != nil {
				t.Fatal(err)
			}
		}
	}
	return j
}

// settledAt settles a task whose stored median is median: the distance and the inside flag are
// computed the way the runner computes them.
func settledAt(median string, agreed bool) func(*journal.Entry) {
	return func(e *journal.Entry) {
		stored := numeric.MustPrice(median).Answer()
		e.StoredAnswer, e.Agreed = stored, agreed
		e.Inside = numeric.WithinTolerance(numeric.AnswerInt(e.Answer), numeric.AnswerInt(stored), 50)
		e.RealizedCentiBps = journal.StoredDistance(e.Answer, stored)
	}
}

func TestCheckRigOverAJournal(t *testing.T) {
	now := mustTime("2026-11-24T15:35:30Z")
	minute := now.Add(-20 * time.Minute).Truncate(time.Minute)
	j := writeJournal(t, filepath.Join(t.TempDir(), "rig.db"), minute, []task{
		{id: 1, to: journal.StateSettled, update: settledAt("180.18", true)}, // 9.99 bps: fine
		{id: 2, to: journal.StateSettled, update: settledAt("180.54", true)}, // 0.54 / 180.54 = 29.91 bps: a near miss
		{id: 3, to: journal.StateSettled, update: settledAt("181.80", true)}, // 99.0 bps: slashed
		{id: 4, to: journal.StateSettled, update: settledAt("180.00", false)},
		{id: 5, to: journal.StateMissed, update: func(e *journal.Entry) { e.Reason = "no reveal before the reveal window closed" }},
		{id: 6, to: journal.StateSkipped, update: func(e *journal.Entry) { e.Reason = "no answer: 1 source gave a price" }},
		{id: 7, to: journal.StateCommitted, update: func(e *journal.Entry) { e.RevealDeadline = now.Add(time.Minute) }},
		{id: 8, to: journal.StateCommitted, update: func(e *journal.Entry) { e.RevealDeadline = now.Add(3 * time.Minute) }},
		{id: 9, to: journal.StateCommitted, update: func(e *journal.Entry) { e.RevealDeadline = now.Add(-30 * time.Second) }},
		{id: 10, to: journal.StateAnswered}, // its commit window closes in 10 − 20 min: closed
		{id: 11, to: journal.StateRevealed, update: func(e *journal.Entry) { e.RevealDeadline = now.Add(-time.Minute) }}, // revealed: waiting for settle
		// A task the spec refused, settled in agreement on the refusal answer 0: nothing lost,
		// nothing to report (a skip, task 6, is reported).
		{id: 12, to: journal.StateSettled, update: func(e *journal.Entry) {
			zero := numeric.Scaled(0).Answer()
			e.Answer, e.Price, e.Refusal = zero, 0, `unknown symbol: "AAPL"`
			e.StoredAnswer, e.Agreed = zero, true
			e.Inside = numeric.WithinTolerance(numeric.AnswerInt(e.Answer), numeric.AnswerInt(zero), 50)
			e.RealizedCentiBps = journal.StoredDistance(e.Answer, zero)
		}},
	})
	ctx := context.Background()
	recent, err := j.Since(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	open, err := j.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fs := CheckRig(append(recent, open...), now, time.Time{}, 50, Thresholds{}.WithDefaults(25))
	got := map[string][]uint64{}
	for _, f := range fs {
		got[f.Name] = append(got[f.Name], f.TaskID)
		if f.Check != CheckRigName || f.RigID != 7 || f.Symbol != "NVDA" || !f.First.Equal(minute) {
			t.Errorf("finding %+v", f)
		}
	}
	want := map[string][]uint64{
		NearMiss: {2}, Slashed: {3}, NotAgreed: {4}, MissedWindow: {5}, TaskSkipped: {6},
		RevealPending: {7, 9}, CommitPending: {10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings %v, want %v", got, want)
		for _, f := range fs {
			t.Logf("  %s", f.Message)
		}
	}
	for _, f := range fs {
		switch f.Name {
		case NearMiss:
			if f.Value != "29.91" || f.Limit != "25.00" || f.Severity != Warn {
				t.Errorf("near miss %+v", f)
			}
		case Slashed:
			if f.Severity != Alert || !strings.Contains(f.Message, "181.8") {
				t.Errorf("slashed %+v", f)
			}
		case RevealPending:
			if f.TaskID == 9 && !strings.Contains(f.Message, "closed 30s ago") {
				t.Errorf("past deadline: %q", f.Message)
			}
		}
	}
}

func TestCheckRigWindowAndShare(t *testing.T) {
	now := mustTime("2026-11-24T15:35:30Z")
	from := now.Add(-time.Hour)
	dist := func(c int64) journal.Entry {
		return journal.Entry{TaskID: uint64(c), State: journal.StateSettled, Agreed: true, Inside: true, RealizedCentiBps: c, UpdatedAt: now}
	}
	old := dist(4000)
	old.TaskID, old.UpdatedAt = 1, from.Add(-time.Second)
	tests := []struct {
		name    string
		entries []journal.Entry
		percent int
		want    []uint64
	}{
		{"default half of 50 bps", []journal.Entry{dist(2500), dist(2501)}, 0, []uint64{2501}},
		{"a fifth", []journal.Entry{dist(999), dist(1001)}, 20, []uint64{1001}},
		{"settled before the window", []journal.Entry{old, dist(3000)}, 0, []uint64{3000}},
		{"duplicates from Since and Open count once", []journal.Entry{dist(3000), dist(3000)}, 0, []uint64{3000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := CheckRig(tc.entries, now, from, 50, Thresholds{NearMissPercent: tc.percent}.WithDefaults(25))
			var got []uint64
			for _, f := range fs {
				if f.Name != NearMiss {
					t.Errorf("unexpected %s", f.Name)
				}
				got = append(got, f.TaskID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("near misses %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseETH(t *testing.T) {
	tests := []struct {
		in   string
		want string // wei; "" means an error
	}{
		{"0.001", "1000000000000000"},
		{"1", "1000000000000000000"},
		{" 0.000000000000000001 ", "1"},
		{"0", "0"},
		{"0.0000000000000000001", ""},
		{"-1", ""},
		{"1e-3", "1000000000000000"},
		{"abc", ""},
		{"", ""},
		{"1e999999999", ""},
		{"1e-999999999", ""},
	}
	for _, tc := range tests {
		got, err := ParseETH(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("ParseETH(%q) = %s, want an error", tc.in, got)
		case tc.want != "" && (err != nil || got.String() != tc.want):
			t.Errorf("ParseETH(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
		if err == nil && FormatETH(got) != strings.TrimSpace(tc.in) && tc.in != "1e-3" {
			t.Errorf("FormatETH(ParseETH(%q)) = %s", tc.in, FormatETH(got))
		}
	}
}

func TestBalancesOverASimulatedChain(t *testing.T) {
	rich, poor, empty := common.HexToAddress("0x1111"), common.HexToAddress("0x2222"), common.HexToAddress("0x3333")
	half, _ := ParseETH("0.0005")
	one, _ := ParseETH("1")
	b := simulated.NewBackend(types.GenesisAlloc{rich: {Balance: one}, poor: {Balance: half}})
	t.Cleanup(func() { b.Close() })

	env := newSimEnv(t, tuesday)
	a := env.auditor(t, Config{
		Spec: env.spec(t), Symbols: []string{"SPY"}, Minutes: 1,
		Chain: b.Client(), Addresses: []common.Address{rich, poor, empty},
	})
	rep := a.Run(context.Background())
	got := map[string]Finding{}
	for _, f := range rep.Findings {
		if f.Name != LowBalance {
			t.Errorf("unexpected %s: %s", f.Name, f.Message)
		}
		got[f.Address] = f
	}
	if len(got) != 2 {
		t.Fatalf("low balances %v, want the poor and the empty address", got)
	}
	if f := got[poor.Hex()]; f.Value != "0.0005" || f.Limit != "0.001" || f.Severity != Warn {
		t.Errorf("poor: %+v", f)
	}
	if f := got[empty.Hex()]; f.Value != "0" || f.Severity != Alert {
		t.Errorf("empty: %+v", f)
	}
	if len(rep.Balances) != 3 || rep.Balances[0].Wei.Cmp(one) != 0 {
		t.Errorf("balances %v", rep.Balances)
	}
	if c, _ := rep.Check(CheckBalancesName); c.State != CheckFindings || c.Findings != 2 {
		t.Errorf("balances check %+v", c)
	}

	// a stricter minimum flags the rich one too
	a = env.auditor(t, Config{Spec: env.spec(t), Symbols: []string{"SPY"}, Minutes: 1,
		Chain: b.Client(), Addresses: []common.Address{rich}, MinBalance: new(big.Int).Mul(one, big.NewInt(2))})
	if rep := a.Run(context.Background()); len(rep.Findings) != 1 || rep.Findings[0].Address != rich.Hex() {
		t.Errorf("findings %v", names(rep.Findings))
	}
}

func TestAuditorReadsTheJournal(t *testing.T) {
	env := newSimEnv(t, tuesday)
	minute := tuesday.Add(-time.Hour).Truncate(time.Minute)
	j := writeJournal(t, filepath.Join(t.TempDir(), "rig.db"), minute, []task{
		{id: 1, to: journal.StateSettled, update: settledAt("180.18", true)},
		{id: 2, to: journal.StateSettled, update: settledAt("180.54", true)},
		{id: 3, to: journal.StateSettled, update: settledAt("181.80", true)},
	})
	// The journal stamps entries with the wall clock, which the simulator's fake clock does not
	// follow: a window reaching back decades holds them whatever the real date.
	a := env.auditor(t, Config{Spec: env.spec(t), Symbols: []string{"SPY"}, Since: 30 * 365 * 24 * time.Hour, MaxMinutes: 1, Journal: j})
	rep := a.Run(context.Background())
	if got := names(rep.Findings); !reflect.DeepEqual(got, map[string][]string{NearMiss: {"NVDA"}, Slashed: {"NVDA"}}) {
		t.Errorf("findings %v", got)
	}
	c, _ := rep.Check(CheckRigName)
	if c.State != CheckFindings || c.Findings != 2 || !strings.Contains(c.Detail, "3 settled") {
		t.Errorf("rig check %+v", c)
	}
	if rep.ExitCode() != 1 {
		t.Errorf("exit %d", rep.ExitCode())
	}
}

func FuzzParseETH(f *testing.F) {
	for _, s := range []string{"0.001", "1", "0", "1e-3", "-1", "0.0000000000000000001", "12345678901234567890.5", " 2 ", "0x10", "", "1e999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		wei, err := ParseETH(text)
		if err != nil {
			return
		}
		if wei.Sign() < 0 {
			t.Fatalf("ParseETH(%q) = %s, negative", text, wei)
		}
		back, err := ParseETH(FormatETH(wei))
		if err != nil || back.Cmp(wei) != 0 {
			t.Fatalf("FormatETH(%s) = %q does not read back (%v, %v)", wei, FormatETH(wei), back, err)
		}
	})
}
