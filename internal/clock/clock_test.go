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
