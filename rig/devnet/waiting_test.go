package devnet

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/testbound"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// Issue 37: between a task's steps the devnet says what it waits for and until when. A rig that
// never commits (killed) leaves its task waiting for commits until the commit window closes:
// Wait says so, with the contract's own deadline, instead of staying silent.
func TestWaitSaysWhatATaskWaitsForAndUntilWhen(t *testing.T) {
	testbound.EndToEnd(t)
	t.Parallel()
	ctx := testContext(t)
	waiting := make(chan Event, 64)
	d, err := Start(ctx, Options{Instant: true, L1Interval: testL1Interval, Logger: testLogger(t), Spec: []byte(testSpec),
		CommitWindow: 20 * time.Second, RevealWindow: 20 * time.Second, QuietAfter: 200 * time.Millisecond,
		Events: func(e Event) {
			if e.Waiting {
				select {
				case waiting <- e:
				default:
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Kill(2); err != nil {
		t.Fatal(err)
	}
	minute := DefaultMinute(time.Now(), []market.Session{market.Pre, market.Regular, market.Post})
	ids, err := d.Order(ctx, []string{"NVDA"}, minute)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = d.Wait(ctx, ids) }()
	for {
		var e Event
		select {
		case e = <-waiting:
		case <-ctx.Done():
			t.Fatal("Wait never said what the task waits for")
		}
		if e.TaskID != ids[0] || e.Phase != "waiting" || !strings.HasPrefix(e.Detail, "for ") {
			t.Fatalf("waiting event %+v", e)
		}
		if !strings.Contains(e.Detail, "commits (2/3)") {
			continue // before the draw, or before both live rigs committed
		}
		info, err := agentrig.NewContract(d.client, d.Contract).Task(ctx, new(big.Int).SetUint64(ids[0]))
		if err != nil {
			t.Fatal(err)
		}
		until := time.Unix(int64(info.CommitDeadline), 0).UTC().Format(time.TimeOnly) + " UTC"
		if !strings.Contains(e.Detail, "until the commit window closes at "+until) {
			t.Fatalf("want the commit deadline %s in %q", until, e.Detail)
		}
		return
	}
}
