package testbound

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fakeT is the part of a test Context uses, recorded: its deadline, its failure, what it
// reports and its cleanups, which the test runs when it chooses.
type fakeT struct {
	testing.TB
	deadline time.Time // zero: no -timeout
	failed   bool
	errs     []string
	cleanups []func()
}

func (f *fakeT) Helper()           {}
func (f *fakeT) Name() string      { return "TestFake" }
func (f *fakeT) Failed() bool      { return f.failed }
func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Errorf(s string, a ...any) {
	f.failed = true
	f.errs = append(f.errs, fmt.Sprintf(s, a...))
}
func (f *fakeT) Deadline() (time.Time, bool) { return f.deadline, !f.deadline.IsZero() }

// end runs the cleanups, the last registered first, as a test's end does.
func (f *fakeT) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestTheBoundIsTheSoonerOfTheCapAndThePackageDeadline(t *testing.T) {
	before := time.Now()
	f := &fakeT{deadline: before.Add(time.Hour)}
	ctx, _ := Context(f, 10*time.Minute)
	after := time.Now()
	dl, ok := ctx.Deadline()
	if !ok || dl.Before(before.Add(10*time.Minute)) || dl.After(after.Add(10*time.Minute)) {
		t.Errorf("a cap of 10m under an hour's -timeout: deadline %v, want 10m after %v", dl, before)
	}
	f.end()
	if ctx.Err() == nil {
		t.Error("the context outlived its test")
	}

	f = &fakeT{deadline: time.Now().Add(3 * time.Minute)}
	ctx, _ = Context(f, 10*time.Minute)
	if dl, ok := ctx.Deadline(); !ok || !dl.Equal(f.deadline.Add(-Margin)) {
		t.Errorf("a cap of 10m with 3m of -timeout left: deadline %v, want %v", dl, f.deadline.Add(-Margin))
	}
	f.end()

	f = &fakeT{} // go test -timeout 0
	before = time.Now()
	ctx, _ = Context(f, time.Minute)
	if dl, ok := ctx.Deadline(); !ok || dl.Before(before.Add(time.Minute)) {
		t.Errorf("a cap of 1m without a -timeout: deadline %v", dl)
	}
	f.end()
}

// A test that failed once its bound ran out also fails saying so, naming the bound; a test that
// failed for another reason, or passed, gets no such message.
func TestAFailedTestWhoseBoundRanOutSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cap          time.Duration
		deadline     time.Duration // from now; 0: none
		cancel, fail bool
		want         string
	}{
		{name: "own cap", cap: time.Millisecond, fail: true, want: "TestFake's own bound of 1ms ran out"},
		{name: "package deadline", cap: time.Hour, deadline: Margin + time.Millisecond, fail: true, want: "ran out of the package's time"},
		{name: "passed", cap: time.Millisecond},
		{name: "cancelled", cap: time.Millisecond, cancel: true, fail: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeT{}
			if tc.deadline > 0 {
				f.deadline = time.Now().Add(tc.deadline)
			}
			ctx, cancel := Context(f, tc.cap)
			if tc.cancel {
				cancel()
			}
			<-ctx.Done()
			f.failed = tc.fail
			f.end()
			switch {
			case tc.want == "" && len(f.errs) > 0:
				t.Errorf("reported %q", f.errs)
			case tc.want != "" && (len(f.errs) != 1 || !strings.Contains(f.errs[0], tc.want)):
				t.Errorf("reported %q, want one message with %q", f.errs, tc.want)
			}
		})
	}
}

// demo runs the two tests below in a child test binary only: one stuck until its bound runs out,
// then one after it.
const demo = "TESTBOUND_DEMO"

func TestStuckDemo(t *testing.T) {
	if os.Getenv(demo) != "1" {
		t.Skip("run by TestAStuckTestFailsAloneAndTheNextOneRuns")
	}
	ctx, _ := Context(t, 100*time.Millisecond)
	<-ctx.Done() // stuck on something that waits on ctx
	t.Fatalf("deploying: %v", ctx.Err())
}

func TestAfterStuckDemo(t *testing.T) {
	if os.Getenv(demo) != "1" {
		t.Skip("run by TestAStuckTestFailsAloneAndTheNextOneRuns")
	}
	ctx, _ := Context(t, time.Minute)
	if err := ctx.Err(); err != nil {
		t.Fatalf("the test after a stuck one starts with its context ended: %v", err)
	}
}

// One stuck test fails by name with its bound in the message, and the test after it gets its own
// bound and passes (before, both shared go test's -timeout, and the stuck test used it up).
func TestAStuckTestFailsAloneAndTheNextOneRuns(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^(TestStuckDemo|TestAfterStuckDemo)$", "-test.v", "-test.timeout", "10m")
	cmd.Env = append(os.Environ(), demo+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed with a stuck test:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestStuckDemo",
		"deploying: context deadline exceeded",
		"TestStuckDemo's own bound of 100ms ran out",
		"--- PASS: TestAfterStuckDemo",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the child's output has no %q:\n%s", want, out)
		}
	}
}

// endToEndDemo marks the child run of TestEndToEndDemo.
const endToEndDemo = "TESTBOUND_E2E_DEMO"

func TestEndToEndDemo(t *testing.T) {
	if os.Getenv(endToEndDemo) != "1" {
		t.Skip("run by TestEndToEndSkipsOnlyUnderShort")
	}
	EndToEnd(t)
	t.Log("the end-to-end body ran")
}

// The fast tier (-short) skips an end-to-end test with a message saying how to run it; the full
// run goes through to its body.
func TestEndToEndSkipsOnlyUnderShort(t *testing.T) {
	for _, short := range []bool{true, false} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestEndToEndDemo$", "-test.v", "-test.short="+fmt.Sprint(short))
		cmd.Env = append(os.Environ(), endToEndDemo+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("-short=%v: %v\n%s", short, err, out)
		}
		ran := strings.Contains(string(out), "the end-to-end body ran")
		skipped := strings.Contains(string(out), "--- SKIP: TestEndToEndDemo") && strings.Contains(string(out), "end-to-end: runs without -short")
		if ran == short || skipped != short {
			t.Errorf("-short=%v: body ran %v, skipped %v:\n%s", short, ran, skipped, out)
		}
	}
}
