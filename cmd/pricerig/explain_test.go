package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/devnet"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources/sim"
)

// explainJSON is the part of explain --json these tests read.
type explainJSON struct {
	Symbol   string `json:"symbol"`
	Agreed   bool   `json:"agreed"`
	Answer   string `json:"price"`
	AnswerE8 int64  `json:"price_e8"`
	Sources  []struct {
		Source  string `json:"source"`
		Status  string `json:"status"`
		Used    bool   `json:"used"`
		BarTime string `json:"bar_time"`
		PriceE8 int64  `json:"price_e8"`
		Bars    []struct {
			Time      string `json:"time"`
			CloseE8   int64  `json:"close_e8"`
			FetchedAt string `json:"fetched_at"`
			Final     bool   `json:"final"`
			Used      bool   `json:"used"`
		} `json:"bars"`
	} `json:"sources"`
	Task *struct {
		ID          uint64   `json:"id"`
		Committed   string   `json:"committed"`
		CommittedE8 int64    `json:"committed_e8"`
		Rederived   bool     `json:"rederived"`
		Evidence    bool     `json:"evidence"`
		Counted     []string `json:"counted"`
		Rigs        []struct {
			Rig       uint64 `json:"rig"`
			Committed string `json:"committed"`
		} `json:"rigs"`
	} `json:"task"`
	Revisions []json.RawMessage `json:"revisions"`
}

func decodeExplain(t *testing.T, out string) explainJSON {
	t.Helper()
	var e explainJSON
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	return e
}

// The test: a price answered over the simulator into --db, then every source down (the
// simulator failing every request, and explain given no --sim: the shipped spec's real
// providers, unreachable here): explain --json derives from the same --db exactly the answer
// price gave, naming the bar each source used as price named it, each bar held with its fetch
// time and finality.
func TestExplainRederivesWhatPriceAnsweredOffline(t *testing.T) {
	noEnv(t)
	for _, minute := range []string{"2026-11-27T15:30:00Z", "2026-11-28T15:30:00Z"} { // a Friday, and the Saturday after (carried)
		t.Run(minute, func(t *testing.T) {
			m, _ := time.Parse(time.RFC3339, minute)
			srv, url := startSim(t, m.Add(50*time.Hour))
			db := filepath.Join(t.TempDir(), "ledger.db")
			code, out, stderr := runCLI(t, "price", "--json", "--sim", url, "--db", db, "NVDA", minute)
			if code != exitOK {
				t.Fatalf("price: exit %d: %s", code, stderr)
			}
			p := decodePrice(t, out)
			for _, prov := range sim.Providers() {
				srv.SetFault(prov, sim.Fault5xx)
			}
			asked := 0
			for _, prov := range sim.Providers() {
				asked += srv.Requests(prov)
			}

			code, out, stderr = runCLI(t, "explain", "--json", "--db", db, "NVDA", minute)
			if code != exitOK {
				t.Fatalf("explain: exit %d: %s\n%s", code, stderr, out)
			}
			e := decodeExplain(t, out)
			if !e.Agreed || e.Answer != p.Price || e.Symbol != "NVDA" {
				t.Fatalf("explain answered %q (agreed %v), price %q", e.Answer, e.Agreed, p.Price)
			}
			if want, _ := numeric.ParsePrice(p.Price); e.AnswerE8 != int64(want) {
				t.Errorf("price_e8 %d, want %d", e.AnswerE8, int64(want))
			}
			// price stops on an early quorum; the sources it left pending went on filling the
			// ledger, so explain counts them too: the bar of the tape, as price would have
			priced, pending := map[string]string{}, map[string]bool{}
			for _, q := range p.Sources {
				if q.BarTime != nil && (q.Status == "ok" || q.Status == "carried") {
					priced[q.Name] = *q.BarTime
				}
				pending[q.Name] = q.Status == "pending"
			}
			tape := tapeAt(t, srv, "NVDA", m)
			used := 0
			for _, s := range e.Sources {
				if !s.Used {
					if _, ok := priced[s.Source]; ok {
						t.Errorf("%s: price counted it, explain does not (%s)", s.Source, s.Status)
					}
					continue
				}
				used++
				bt, ok := priced[s.Source]
				switch {
				case ok && !sameInstant(t, bt, s.BarTime):
					t.Errorf("%s: explain used the bar of %s, price %s", s.Source, s.BarTime, bt)
				case !ok && (!pending[s.Source] || !sameInstant(t, s.BarTime, tape.Start.Format(time.RFC3339))):
					t.Errorf("%s: explain used the bar of %s, price had it %v", s.Source, s.BarTime, pending[s.Source])
				}
				held := false
				for _, b := range s.Bars {
					if b.Used {
						held = sameInstant(t, b.Time, s.BarTime) && b.Final && b.FetchedAt != "" && b.CloseE8 == s.PriceE8
					}
				}
				if !held {
					t.Errorf("%s: the bar used is not listed final with its fetch time and close: %+v", s.Source, s.Bars)
				}
			}
			if used < len(priced) || len(priced) < 2 {
				t.Errorf("explain used %d sources, price %d", used, len(priced))
			}
			after := 0
			for _, prov := range sim.Providers() {
				after += srv.Requests(prov)
			}
			if after != asked {
				t.Errorf("explain sent %d requests", after-asked)
			}
		})
	}
}

func sameInstant(t *testing.T, a, b string) bool {
	t.Helper()
	x, err1 := time.Parse(time.RFC3339, a)
	y, err2 := time.Parse(time.RFC3339, b)
	return err1 == nil && err2 == nil && x.Equal(y)
}

// explain --task reads the task from the journal and its evidence from the rig's ledger beside
// it: the answer derived again is the committed one; a journal whose committed answer differs
// is named (exit 1, rederived false).
func TestExplainTaskAgainstTheJournal(t *testing.T) {
	noEnv(t)
	minute := "2026-11-27T15:30:00Z"
	m, _ := time.Parse(time.RFC3339, minute)
	_, url := startSim(t, m.Add(50*time.Hour))
	dir := t.TempDir()
	journalPath := filepath.Join(dir, "rig.db")
	ledgerPath := ledgerBeside(journalPath)
	code, out, stderr := runCLI(t, "price", "--json", "--sim", url, "--db", ledgerPath, "NVDA", minute)
	if code != exitOK {
		t.Fatalf("price: exit %d: %s", code, stderr)
	}
	price, _ := numeric.ParsePrice(decodePrice(t, out).Price)

	ctx := context.Background()
	j, err := rigjournal.OpenJournal(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	for task, p := range map[uint64]numeric.Scaled{41: price, 42: price + 1} {
		if _, err := j.RecordAnswer(ctx, rigjournal.Entry{TaskID: task, RigID: 3, Symbol: "NVDA", Minute: m, Price: p, Answer: p.Answer(), ExpectedMedian: price}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	ledger, err := history.Open(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.KeepEvidence(ctx, history.Evidence{Task: 41, Symbol: "NVDA", Minute: m, Answered: m.Add(49 * time.Hour), Price: price,
		Span: market.Span{From: m.Add(-time.Hour), To: m.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	ledger.Close()

	code, out, stderr = runCLI(t, "explain", "--json", "--task", "41", "--journal", journalPath)
	if code != exitOK {
		t.Fatalf("explain --task 41: exit %d: %s\n%s", code, stderr, out)
	}
	e := decodeExplain(t, out)
	if e.Task == nil || !e.Task.Rederived || !e.Task.Evidence || e.Task.CommittedE8 != int64(price) || e.AnswerE8 != int64(price) ||
		len(e.Task.Rigs) != 1 || e.Task.Rigs[0].Rig != 3 {
		t.Fatalf("task 41: %+v, answer %d, want %d rederived with evidence and rig 3", e.Task, e.AnswerE8, int64(price))
	}

	// backfill export --evidence: the task's answer with the bars of every source it read
	code, out, stderr = runCLI(t, "backfill", "export", "--db", ledgerPath, "--format", "jsonl", "--evidence")
	if code != exitOK {
		t.Fatalf("export --evidence: exit %d: %s", code, stderr)
	}
	var line struct {
		Task   uint64 `json:"task"`
		Scaled int64  `json:"price_e8"`
		Bars   []struct {
			Source  string
			Bar     string `json:"time"`
			Fetched string `json:"fetched_at"`
			Final   bool
		} `json:"bars"`
	}
	if err := json.Unmarshal([]byte(out), &line); err != nil || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Fatalf("not one JSON line (%v):\n%s", err, out)
	}
	atMinute := map[string]bool{}
	for _, b := range line.Bars {
		if !b.Final || b.Fetched == "" {
			t.Errorf("bar %+v not final with its fetch time", b)
		}
		if sameInstant(t, b.Bar, minute) {
			atMinute[b.Source] = true
		}
	}
	if line.Task != 41 || line.Scaled != int64(price) || len(atMinute) < 2 {
		t.Errorf("evidence line: task %d, scaled %d, bars at the minute of %v", line.Task, line.Scaled, atMinute)
	}
	if code, _, _ := runCLI(t, "backfill", "export", "--db", ledgerPath, "--format", "parquet", "--evidence"); code != exitBadInput {
		t.Errorf("parquet evidence: exit %d", code)
	}

	code, out, stderr = runCLI(t, "explain", "--json", "--task", "42", "--journal", journalPath)
	if code != exitFailure || !strings.Contains(stderr, "is not the one committed") {
		t.Fatalf("explain --task 42: exit %d: %s", code, stderr)
	}
	if e := decodeExplain(t, out); e.Task == nil || e.Task.Rederived || e.Task.Evidence || e.AnswerE8 != int64(price) {
		t.Errorf("task 42: %+v", e.Task)
	}

	if code, _, stderr := runCLI(t, "explain", "--task", "43", "--journal", journalPath); code != exitFailure || !strings.Contains(stderr, "task 43") {
		t.Errorf("an unknown task: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{{"explain"}, {"explain", "NVDA"}, {"explain", "--task", "41", "NVDA", minute}, {"explain", "--db", ledgerPath, "NVDA", "2026-11-27T15:30:30Z"}, {"explain", "--db", ledgerPath, "XYZ", minute}, {"explain", "--db", ledgerPath, "--rpc", "http://127.0.0.1:1", "NVDA", minute}} {
		if code, _, stderr := runCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}

// A task a devnet's rigs answered, committed and revealed: the first process's ledger (beside
// its journal, as pricerig rig keeps it) holds the evidence, and explain --task, offline (the
// spec's own providers, no simulator), derives the committed answer again, with each of the
// process's rigs' reveal and its distance to the stored median.
func TestExplainTaskADevnetAnswered(t *testing.T) {
	c := startChainT(t, devnet.Options{Ledger: true})
	ids, err := c.d.Order(c.ctx, []string{"NVDA"}, devnet.DefaultMinute(time.Now(), c.d.Spec.Rules.Sessions))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.d.WaitSettled(c.ctx, 1, ids); err != nil {
		t.Fatal(err)
	}
	journal := c.d.JournalPath(0)
	j, err := rigjournal.OpenExistingJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	// the settlement is journaled after the chain's event: wait for the process to record it
	var entries []rigjournal.Entry
	for settled := false; !settled; {
		if entries, err = j.Task(c.ctx, ids[0]); err != nil || len(entries) == 0 {
			t.Fatalf("the first process's journal holds %d entries of task %d (%v)", len(entries), ids[0], err)
		}
		settled = true
		for _, e := range entries {
			settled = settled && e.State == rigjournal.StateSettled
		}
		select {
		case <-c.ctx.Done():
			t.Fatalf("the journal's entries never settled: %+v", entries)
		case <-time.After(50 * time.Millisecond):
		}
	}
	j.Close()
	for i := range c.d.Runners {
		if err := c.d.Kill(i); err != nil { // every rig stopped, its journal and ledger closed
			t.Fatal(err)
		}
	}
	for _, p := range sim.Providers() {
		c.d.Sim.SetFault(p, sim.Fault5xx) // and every source down
	}

	code, out, stderr := runCLI(t, "explain", "--json", "--task", strconv.FormatUint(ids[0], 10), "--journal", journal, "--config", instantSpec(t))
	if code != exitOK {
		t.Fatalf("explain --task: exit %d: %s\n%s", code, stderr, out)
	}
	if e := decodeExplain(t, out); e.Task == nil || !e.Task.Rederived {
		t.Fatalf("offline: %+v", e.Task)
	}
	// with the chain: every drawn rig's reveal and its distance to the stored median
	code, out, stderr = c.cli("explain", "--json", "--task", strconv.FormatUint(ids[0], 10), "--journal", journal)
	if code != exitOK {
		t.Fatalf("explain --task: exit %d: %s\n%s", code, stderr, out)
	}
	e := decodeExplain(t, out)
	if e.Task == nil || !e.Task.Rederived || !e.Task.Evidence || e.Task.CommittedE8 != int64(entries[0].Price) || e.AnswerE8 != int64(entries[0].Price) {
		t.Fatalf("task %+v, answer %d; the journal committed %s", e.Task, e.AnswerE8, entries[0].Price)
	}
	if len(e.Task.Rigs) != len(entries) {
		t.Errorf("%d rigs shown, the journal holds %d", len(e.Task.Rigs), len(entries))
	}
	// the rig's evidence names the sources its answer counted, and explain counts those
	counted := map[string]bool{}
	for _, s := range e.Task.Counted {
		counted[s] = true
	}
	for _, s := range e.Sources {
		if priced := s.Status == "ok" || s.Status == "carried" || s.Status == "outlier"; priced != counted[s.Source] {
			t.Errorf("source %s is %s, and the evidence's counted sources are %v", s.Source, s.Status, e.Task.Counted)
		}
	}
	if len(e.Task.Counted) < 2 {
		t.Errorf("the evidence counted %v", e.Task.Counted)
	}
	var raw struct {
		Task struct {
			StoredMedian string `json:"stored_median"`
			Agreed       *bool  `json:"agreed"`
			Reveals      []struct {
				Rig         uint64 `json:"rig"`
				Revealed    string `json:"revealed"`
				DistanceBps string `json:"distance_bps"`
			} `json:"reveals"`
			Rigs []struct {
				Revealed     string `json:"revealed"`
				StoredMedian string `json:"stored_median"`
				DistanceBps  string `json:"distance_bps"`
			} `json:"rigs"`
		} `json:"task"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw.Task.Rigs {
		if r.Revealed != e.Task.Committed || r.StoredMedian == "" || r.DistanceBps == "" {
			t.Errorf("rig %+v: want revealed %s, a stored median and a distance", r, e.Task.Committed)
		}
	}
	if raw.Task.StoredMedian == "" || raw.Task.Agreed == nil || !*raw.Task.Agreed || len(raw.Task.Reveals) != int(c.d.Spec.Job.Quorum) {
		t.Fatalf("on chain: stored %q, agreed %v, %d reveals (quorum %d)", raw.Task.StoredMedian, raw.Task.Agreed, len(raw.Task.Reveals), c.d.Spec.Job.Quorum)
	}
	ours := map[uint64]bool{}
	for _, r := range e.Task.Rigs {
		ours[r.Rig] = true
	}
	for _, r := range raw.Task.Reveals {
		if r.Revealed == "" || r.DistanceBps == "" {
			t.Errorf("reveal %+v: want an answer and its distance", r)
		}
		if ours[r.Rig] && r.Revealed != e.Task.Committed {
			t.Errorf("our rig %d revealed %s on chain, committed %s", r.Rig, r.Revealed, e.Task.Committed)
		}
	}
	used := 0
	for _, s := range e.Sources {
		if s.Used {
			used++
		}
	}
	if used < 2 {
		t.Errorf("%d sources used", used)
	}
}
