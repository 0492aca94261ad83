package journal

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
)

func TestJournalKeepsTheFirstSaltAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rig.db")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Date(2026, 11, 27, 15, 40, 0, 0, time.UTC)
	if err := j.Drawn(ctx, 7, 2, deadline); err != nil {
		t.Fatal(err)
	}
	first := Entry{TaskID: 7, RigID: 2, Symbol: "NVDA", Minute: time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC),
		Answer: numeric.MustPrice("177.12").Answer(), Salt: [32]byte{1, 2, 3}, Commitment: [32]byte{9}, Price: numeric.MustPrice("177.12"),
		ExpectedMedian: numeric.MustPrice("177.13"), SelfCentiBps: 56}
	got, err := j.RecordAnswer(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != StateAnswered || !got.CommitDeadline.Equal(deadline) {
		t.Fatalf("recorded %+v", got)
	}
	// A second attempt with a different salt (a restarted process) gets the first back.
	second := first
	second.Salt = [32]byte{4, 5, 6}
	second.Answer = numeric.MustPrice("177.50").Answer()
	got, err = j.RecordAnswer(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if got.Salt != first.Salt || got.Answer != first.Answer {
		t.Fatalf("journal replaced the first answer: %+v", got)
	}
	if err := j.Advance(ctx, 7, 2, StateCommitted, func(e *Entry) { e.CommitTx = "0xabc" }); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	// Kill and reopen: everything is still there.
	j, err = OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	e, ok, err := j.Get(ctx, 7, 2)
	if err != nil || !ok {
		t.Fatalf("entry lost: %v %v", ok, err)
	}
	if e.State != StateCommitted || e.Salt != first.Salt || e.CommitTx != "0xabc" || e.Price != first.Price ||
		!e.Minute.Equal(first.Minute) || e.SelfCentiBps != 56 || e.ExpectedMedian != first.ExpectedMedian {
		t.Fatalf("reopened entry %+v", e)
	}
	open, err := j.Open(ctx)
	if err != nil || len(open) != 1 || open[0].TaskID != 7 {
		t.Fatalf("open entries %+v %v", open, err)
	}
	// Progress never goes backwards, and a final state stays final.
	if err := j.Advance(ctx, 7, 2, StateAnswered, nil); err != nil {
		t.Fatal(err)
	}
	if e, _, _ := j.Get(ctx, 7, 2); e.State != StateCommitted {
		t.Fatalf("state went back to %s", e.State)
	}
	stored := numeric.MustPrice("177.13").Answer()
	if err := j.Advance(ctx, 7, 2, StateSettled, func(e *Entry) {
		e.StoredAnswer, e.Agreed, e.Inside = stored, true, true
		e.RealizedCentiBps = StoredDistance(e.Answer, stored)
	}); err != nil {
		t.Fatal(err)
	}
	if err := j.Advance(ctx, 7, 2, StateMissed, nil); err != nil {
		t.Fatal(err)
	}
	e, _, _ = j.Get(ctx, 7, 2)
	if e.State != StateSettled || !e.Agreed || e.RealizedCentiBps != 56 || e.StoredAnswer != stored {
		t.Fatalf("settled entry %+v", e)
	}
	if open, _ := j.Open(ctx); len(open) != 0 {
		t.Fatalf("settled task still open: %+v", open)
	}
	since, err := j.Since(ctx, time.Time{})
	if err != nil || len(since) != 1 {
		t.Fatalf("since: %v %v", since, err)
	}
}

func TestJournalCursor(t *testing.T) {
	ctx := context.Background()
	j, err := OpenJournal(filepath.Join(t.TempDir(), "rig.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if b, err := j.Cursor(ctx, "follower"); err != nil || b != 0 {
		t.Fatalf("fresh cursor %d %v", b, err)
	}
	for _, b := range []uint64{10, 42} {
		if err := j.SetCursor(ctx, "follower", b); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := j.Cursor(ctx, "follower"); b != 42 {
		t.Fatalf("cursor %d", b)
	}
}

func TestJournalRejectsNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rig.db")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := OpenJournal(path); err == nil || errors.Is(err, nil) {
		t.Fatal("a journal from a newer pricerig was opened")
	}
}

func TestJournalPathWithURISyntax(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd #1 %20")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rig.db")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.SetCursor(context.Background(), "x", 7); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the journal is not where it was asked to be: %v", err)
	}
	if _, err := OpenJournal(filepath.Join(dir, "what?.db")); err == nil {
		t.Fatal("a '?' in the path was accepted")
	}
}

// The journal stores its texts redacted as stdout and stderr are: a task skipped for a price
// error that quotes an RPC URL's key (registered by the command, as `pricerig rig` does) keeps
// the reason without the key, for the page, `pricerig task` and the audit that read it.
func TestJournalTextsAreStoredRedacted(t *testing.T) {
	const key = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	rpc := "http://127.0.0.1:1/v3/" + key
	redact.Register(redact.URLSecrets(rpc)...)
	failure := &url.Error{Op: "Post", URL: rpc, Err: syscall.ECONNREFUSED} // as go-ethereum's HTTP client fails
	ctx := context.Background()
	j, err := OpenJournal(filepath.Join(t.TempDir(), "rig.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Drawn(ctx, 7, 2, time.Date(2026, 11, 27, 15, 40, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	err = j.Advance(ctx, 7, 2, StateSkipped, func(e *Entry) { e.Reason, e.Refusal = "no reconciled price: "+failure.Error(), failure.Error() })
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := j.Get(ctx, 7, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{e.Reason, e.Refusal} {
		if strings.Contains(text, key) || !strings.Contains(text, "127.0.0.1:1/v3/"+redact.Mark) {
			t.Errorf("stored %q: want the URL with its key redacted", text)
		}
	}
}
