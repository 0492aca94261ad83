package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
)

// auditREADMELines are the `pricerig audit` command lines of audit/README.md's Examples that
// name a --journal (the cron line and the in-process schedule), as written: a crontab's five
// time fields and a trailing `|| true` taken off, the shell's quotes undone.
func auditREADMELines(t *testing.T) [][]string {
	t.Helper()
	body, err := os.ReadFile("../../audit/README.md")
	if err != nil {
		t.Fatal(err)
	}
	cronFields := regexp.MustCompile(`^(\S+\s+){5}pricerig `)
	var found [][]string
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.Contains(line, "pricerig audit ") || !strings.Contains(line, "--journal") || strings.HasPrefix(line, "pricerig audit [") {
			continue
		}
		line = cronFields.ReplaceAllString(strings.TrimSpace(line), "pricerig ")
		line = strings.TrimSpace(strings.TrimSuffix(line, "|| true"))
		if !strings.HasPrefix(line, "pricerig audit ") {
			continue
		}
		found = append(found, shellWords(strings.TrimPrefix(line, "pricerig audit ")))
	}
	if len(found) < 2 {
		t.Fatalf("audit/README.md has %d audit lines with --journal, want the cron line and the schedule", len(found))
	}
	return found
}

// shellWords splits a command line as sh does for the README's lines: words, and '…' kept whole.
func shellWords(line string) []string {
	var words []string
	for _, m := range regexp.MustCompile(`'[^']*'|\S+`).FindAllString(line, -1) {
		words = append(words, strings.Trim(m, "'"))
	}
	return words
}

// TestAuditCronLinesFindARigsRevision is issue 33's item 4: the audit's README lines, run as
// written with no --db (only the journal's path, the spec and the simulator given), read the
// rig's ledger beside --journal, as explain and doctor do, and find the revision of a bar a
// rig's answer was derived from. Before, audit defaulted to the per-user cache and the rig's
// evidence and bars were never seen: no revised finding.
func TestAuditCronLinesFindARigsRevision(t *testing.T) {
	noEnv(t)
	m, _, _, provisional := lateMinute(t)
	srv, clock, url := startLateSim(t, m.Add(time.Minute+2*time.Second))
	pub := srv.Publication("alpaca") // serves a provisional close, then revises it past final_after
	pub.Revise = 3 * time.Minute
	srv.SetPublication("alpaca", pub)
	conf, dir := lateSpec(t), t.TempDir()
	journal := filepath.Join(dir, "rig.db")

	// the rig's answer, derived into its ledger beside the journal (as the rig's own fetch does)
	code, out, stderr := runCLI(t, "price", "--json", "--config", conf, "--sim", url, "--db", ledgerBeside(journal), "NVDA", m.Format(time.RFC3339))
	if code != exitOK {
		t.Fatalf("price: exit %d: %s", code, stderr)
	}
	answered := decodePrice(t, out)
	usedProvisional := false
	for _, q := range answered.Sources {
		usedProvisional = usedProvisional || (q.Name == "alpaca" && q.Price != nil && *q.Price == provisional.String())
	}
	if !usedProvisional {
		t.Fatalf("alpaca's provisional close %s was not taken: %+v", provisional, answered.Sources)
	}
	price := numeric.MustPrice(answered.Price)
	j, err := rigjournal.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.RecordAnswer(context.Background(), rigjournal.Entry{TaskID: 5, RigID: 1, Symbol: "NVDA", Minute: m, Price: price,
		Answer: price.Answer(), Salt: [32]byte{5}, CommitDeadline: m.Add(4 * time.Minute)})
	j.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := clock.Until(context.Background(), m.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}

	for _, line := range auditREADMELines(t) {
		args := []string{"--config", conf, "--sim", url}
		scheduled := false
		for i, w := range line {
			switch {
			case i > 0 && line[i-1] == "--journal":
				w = journal // the README's path is the operator's
			case i > 0 && line[i-1] == "--metrics":
				w = "127.0.0.1:0" // the README's port may be taken here
			case w == "--schedule":
				scheduled = true
			}
			args = append(args, w)
		}
		report := runAuditLine(t, args, scheduled)
		if !strings.Contains(report, "revised") || !strings.Contains(report, "task 5") || !strings.Contains(report, "alpaca") {
			t.Errorf("pricerig audit %s: no revised finding of task 5's alpaca bar:\n%s", strings.Join(line, " "), report)
		}
	}
}

// runAuditLine runs one audit command line and returns its report: a one-shot run's stdout
// (exit 1: findings), or a scheduled run's first report, the run at start, before it is stopped.
func runAuditLine(t *testing.T, args []string, scheduled bool) string {
	t.Helper()
	if !scheduled {
		code, out, stderr := runCLI(t, append([]string{"audit"}, args...)...)
		if code != exitFailure {
			t.Errorf("audit %s: exit %d, want 1 (findings)\n%s\n%s", strings.Join(args, " "), code, out, stderr)
		}
		return out
	}
	stdout, outLines := lines(t)
	stderr, errLines := lines(t)
	go func() {
		for range errLines {
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"audit"}, args...), strings.NewReader(""), stdout, stderr) }()
	var report strings.Builder
	deadline := time.After(2 * time.Minute)
read:
	for {
		select {
		case line := <-outLines:
			report.WriteString(line + "\n")
			if strings.Contains(line, "revised") && strings.Contains(line, "task 5") {
				break read
			}
		case <-deadline:
			break read
		}
	}
	cancel()
	<-done
	return report.String()
}
