package devnet

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// testLogTail is how many of the rigs' last log lines a failed test prints.
const testLogTail = 400

// testLogger is the rigs' logger in a test: it keeps their last lines (info and above) and prints
// them when the test fails, so a failure seen only in CI's output says what the rigs did
// (sent, reverted, reorged) before it.
func testLogger(t *testing.T) *slog.Logger {
	t.Helper()
	tail := &lineTail{max: testLogTail}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the rigs' last %d log lines:\n%s", testLogTail, tail.String())
		}
	})
	return slog.New(slog.NewTextHandler(tail, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// lineTail is an io.Writer that keeps the last max lines written to it.
type lineTail struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  bytes.Buffer
}

func (l *lineTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part.Write(p)
	for {
		line, err := l.part.ReadString('\n')
		if err != nil { // no newline yet: keep the start of the line for the next write
			rest := line
			l.part.Reset()
			l.part.WriteString(rest)
			return len(p), nil
		}
		l.lines = append(l.lines, strings.TrimSuffix(line, "\n"))
		if len(l.lines) > l.max {
			l.lines = l.lines[len(l.lines)-l.max:]
		}
	}
}

func (l *lineTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
