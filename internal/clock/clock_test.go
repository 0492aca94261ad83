package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Sleep ends with its context's error when the context ends first, and with nil when the wait
// does; a wait of nothing reports a context that has already ended.
func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("no wait, a cancelled context: %v", err)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("a wait that ends: %v", err)
	}
}

// A fake clock's Sleep moves it on by the wait, never back, and reports its context's end.
func TestFakeSleepMovesTheClockOn(t *testing.T) {
	start := time.Date(2026, time.October, 5, 13, 30, 0, 0, time.UTC)
	c := NewFake(start)
	if err := c.Sleep(context.Background(), 90*time.Second); err != nil || !c.Now().Equal(start.Add(90*time.Second)) {
		t.Errorf("after 90 s: %s, %v", c.Now(), err)
	}
	if err := c.Sleep(context.Background(), -time.Hour); err != nil || !c.Now().Equal(start.Add(90*time.Second)) {
		t.Errorf("a negative wait moved it: %s, %v", c.Now(), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}
