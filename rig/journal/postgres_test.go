package journal

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/numeric"
)

func openPG(t *testing.T, url string) *DBJournal {
	t.Helper()
	j, err := OpenJournal(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// The PostgreSQL journal keeps what the SQLite one keeps, across a reopen: the first salt, the
// states that only move forward, the cursor.
func TestPostgresJournalKeepsTheFirstSalt(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).NewDatabase(t)
	j := openPG(t, url)
	if !j.Shared() || strings.Contains(j.Target(), "?password") {
		t.Fatalf("target %q shared %v", j.Target(), j.Shared())
	}
	deadline := time.Date(2026, 11, 27, 15, 40, 0, 0, time.UTC)
	if err := j.Drawn(ctx, 7, 2, deadline); err != nil {
		t.Fatal(err)
	}
	first := Entry{TaskID: 7, RigID: 2, Symbol: "NVDA", Minute: time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC),
		Answer: numeric.MustPrice("177.12").Answer(), Salt: [32]byte{1, 2, 3}, Commitment: [32]byte{9}, Price: numeric.MustPrice("177.12"),
		ExpectedMedian: numeric.MustPrice("177.13"), SelfCentiBps: 56}
	got, err := j.RecordAnswer(ctx, first)
	if err != nil || got.State != StateAnswered || !got.CommitDeadline.Equal(deadline) {
		t.Fatalf("recorded %+v %v", got, err)
	}
	second := first
	second.Salt = [32]byte{4, 5, 6}
	if got, err = j.RecordAnswer(ctx, second); err != nil || got.Salt != first.Salt {
		t.Fatalf("journal replaced the first salt: %+v %v", got, err)
	}
	if err := j.Advance(ctx, 7, 2, StateCommitted, func(e *Entry) { e.CommitTx = "0xabc" }); err != nil {
		t.Fatal(err)
	}
	if err := j.SetCursor(ctx, "follower", 42); err != nil {
		t.Fatal(err)
	}
	if err := j.Advance(ctx, 8, 2, StateRevealed, func(e *Entry) { e.Refusal = "the input hash does not match" }); err != nil {
		t.Fatal(err)
	}
	j.Close()

	j = openPG(t, url) // migrations run again: nothing to do, nothing lost
	e, ok, err := j.Get(ctx, 7, 2)
	if err != nil || !ok || e.State != StateCommitted || e.Salt != first.Salt || e.CommitTx != "0xabc" ||
		e.Price != first.Price || !e.Minute.Equal(first.Minute) || e.ExpectedMedian != first.ExpectedMedian {
		t.Fatalf("reopened entry %+v %v %v", e, ok, err)
	}
	if err := j.Advance(ctx, 7, 2, StateAnswered, nil); err != nil {
		t.Fatal(err)
	}
	if open, err := j.Open(ctx); err != nil || len(open) != 2 || open[0].State != StateCommitted {
		t.Fatalf("open %+v %v", open, err)
	}
	if why, ok, err := j.RefusalReason(ctx, 8); err != nil || !ok || why != "the input hash does not match" {
		t.Fatalf("refusal %q %v %v", why, ok, err)
	}
	if b, err := j.Cursor(ctx, "follower"); err != nil || b != 42 {
		t.Fatalf("cursor %d %v", b, err)
	}
	if _, err := j.db.Exec(`UPDATE pricerig_schema SET version = 99 WHERE component = 'journal'`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenJournal(url); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("a journal from a newer pricerig was opened: %v", err)
	}
}

// Instances racing to record the answer of one task and rig all come back with one salt: two
// different commitments for a task and rig cannot happen.
func TestPostgresJournalOneSaltUnderRace(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).NewDatabase(t)
	const racers = 6
	journals := make([]*DBJournal, racers)
	for i := range journals {
		journals[i] = openPG(t, url)
	}
	for task := uint64(1); task <= 5; task++ {
		salts := make([][32]byte, racers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, racers)
		for i, j := range journals {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got, err := j.RecordAnswer(ctx, Entry{TaskID: task, RigID: 3, Salt: [32]byte{byte(i + 1), byte(task)}})
				if err != nil {
					errs <- err
				}
				salts[i] = got.Salt
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for i := range salts {
			if salts[i] != salts[0] || salts[i] == ([32]byte{}) {
				t.Fatalf("task %d: racer %d got salt %x, racer 0 got %x", task, i, salts[i][:2], salts[0][:2])
			}
		}
	}
}

// One holder at a time; a lease that expired goes to the next instance in the next epoch, and
// from then on every fenced write of the old holder fails and leaves nothing behind.
func TestLeaseFencesTheOldHolder(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).NewDatabase(t)
	a, b := openPG(t, url), openPG(t, url)
	const name, ttl = "keys-1", 10 * time.Second
	la, err := a.AcquireLease(ctx, name, "a", ttl)
	if err != nil || !la.Held || la.Epoch != 1 {
		t.Fatalf("a: %+v %v", la, err)
	}
	lb, err := b.AcquireLease(ctx, name, "b", ttl)
	if err != nil || lb.Held || lb.Holder != "a" || lb.Epoch != 1 {
		t.Fatalf("b took a live lease: %+v %v", lb, err)
	}
	if la, err = a.AcquireLease(ctx, name, "a", ttl); err != nil || !la.Held || la.Epoch != 1 {
		t.Fatalf("a could not renew in its epoch: %+v %v", la, err)
	}
	fa := Fence{Name: name, Holder: "a", Epoch: la.Epoch}
	if err := a.CheckFence(ctx, fa); err != nil {
		t.Fatal(err)
	}
	fenced := WithFence(ctx, fa)
	if _, err := a.RecordAnswer(fenced, Entry{TaskID: 1, RigID: 1, Salt: [32]byte{1}}); err != nil {
		t.Fatal(err)
	}

	// a stops renewing (a pause, a partition): its lease runs out by the database's clock.
	if _, err := a.db.Exec(`UPDATE leases SET expires_at = now() - interval '1 second' WHERE name = $1`, name); err != nil {
		t.Fatal(err)
	}
	if err := a.CheckFence(ctx, fa); !errors.Is(err, ErrFenced) {
		t.Fatalf("an expired lease passed the fence: %v", err)
	}
	if lb, err = b.AcquireLease(ctx, name, "b", ttl); err != nil || !lb.Held || lb.Epoch != 2 || lb.Holder != "b" {
		t.Fatalf("b did not take over: %+v %v", lb, err)
	}
	if _, err := a.RecordAnswer(fenced, Entry{TaskID: 2, RigID: 1, Salt: [32]byte{2}}); !errors.Is(err, ErrFenced) {
		t.Fatalf("the old holder recorded an answer: %v", err)
	}
	if _, found, _ := b.Get(ctx, 2, 1); found {
		t.Fatal("a fenced write left a row behind")
	}
	if la, err = a.AcquireLease(ctx, name, "a", ttl); err != nil || la.Held || la.Holder != "b" {
		t.Fatalf("a took the lease back from a live holder: %+v %v", la, err)
	}
	// A clean shutdown hands over at once.
	if err := b.ReleaseLease(ctx, Fence{Name: name, Holder: "b", Epoch: 2}); err != nil {
		t.Fatal(err)
	}
	if la, err = a.AcquireLease(ctx, name, "a", ttl); err != nil || !la.Held || la.Epoch != 3 {
		t.Fatalf("a after b released: %+v %v", la, err)
	}
}

// A holder frozen in the middle of a fenced write (SIGSTOP, a paused VM) holds the lease row's
// share lock for as long as its connection lives. The server ends its idle transaction, so the
// next instance takes the expired lease instead of waiting on the lock forever, and the frozen
// write, when its process wakes, fails and leaves nothing. The stop-30 CI run's
// TestFailoverFrozenLeaderSendsNothingWhenItWakes froze its leader there.
func TestAFrozenHolderMidWriteDoesNotKeepTheLease(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).NewDatabase(t)
	a, b := openPG(t, url), openPG(t, url)
	const name, ttl = "keys-1", 500 * time.Millisecond
	la, err := a.AcquireLease(ctx, name, "a", ttl)
	if err != nil || !la.Held {
		t.Fatalf("a: %+v %v", la, err)
	}
	// a's write, stopped after its fence check: the lease row stays share-locked.
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := a.checkFenceTx(WithFence(ctx, Fence{Name: name, Holder: "a", Epoch: la.Epoch}), tx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl) // a's lease runs out while it is frozen
	// Without the server's bound b waits on the row lock until this deadline: minutes, not the
	// bound's two seconds.
	wait, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	lb, err := b.AcquireLease(wait, name, "b", 10*time.Second)
	if err != nil || !lb.Held || lb.Holder != "b" || lb.Epoch != la.Epoch+1 {
		t.Fatalf("b did not take the lease from the frozen holder: %+v %v", lb, err)
	}
	// a wakes: the rest of its write fails and nothing of it is kept.
	if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (task_id, rig_id, state, updated_at) VALUES (9, 1, 'answered', '')`); err == nil {
		if err = tx.Commit(); err == nil {
			t.Fatal("the frozen holder's write committed after the lease moved on")
		}
	}
	if _, found, err := b.Get(ctx, 9, 1); err != nil || found {
		t.Fatalf("the frozen holder's write left a row behind: %v %v", found, err)
	}
}

// The password of a journal URL never appears in what pricerig prints.
func TestJournalURLPasswordIsRedacted(t *testing.T) {
	for _, u := range []string{
		"postgres://rig:s3cret@127.0.0.1:1/rig?sslmode=disable&connect_timeout=1",
		"postgresql://rig@127.0.0.1:1/rig?password=s3cret&sslmode=disable&connect_timeout=1",
	} {
		if r := RedactURL(u); strings.Contains(r, "s3cret") || !strings.Contains(r, "127.0.0.1:1") {
			t.Fatalf("redacted %q", r)
		}
		_, err := OpenJournal(u)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("open error %v", err)
		}
	}
}
