package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/internal/testbound"
)

// keepDevnetUntilCancelled runs `devnet --keep --rigs 0` (a chain and no tasks: quick) with the
// extra arguments until it has printed its commands, runs between on what it printed so far,
// then cancels it as Ctrl-C would; it returns the whole stdout and stderr.
func keepDevnetUntilCancelled(t *testing.T, between func(stdout, stderr string), extra ...string) (string, string) {
	t.Helper()
	ctx, cancel := testContext(t)
	defer cancel()
	var out, errOut syncbuf.Buffer
	done := make(chan int)
	args := append([]string{"devnet", "--keep", "--rigs", "0", "--config", "../../sources.yaml", "--instant"}, extra...)
	go func() { done <- run(ctx, args, strings.NewReader(""), &out, &errOut) }()
	for !strings.Contains(errOut.String(), "pricerig operator withdraw") {
		select {
		case code := <-done:
			t.Fatalf("devnet exited %d:\n%s\n%s", code, out.String(), errOut.String())
		case <-ctx.Done():
			t.Fatal("devnet --keep never printed its commands")
		case <-time.After(20 * time.Millisecond):
		}
	}
	between(out.String(), errOut.String())
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after Ctrl-C:\n%s", code, errOut.String())
	}
	return out.String(), errOut.String()
}

// printedJournal is the --journal of the printed `pricerig rig` command: the newcomer's own.
func printedJournal(t *testing.T, stderr string) string {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "./pricerig" || f[1] != "rig" {
			continue
		}
		for i := range f[:len(f)-1] {
			if f[i] == "--journal" {
				return f[i+1]
			}
		}
	}
	t.Fatalf("no rig command with --journal printed:\n%s", stderr)
	return ""
}

// Issue 37: --dir chooses the devnet's folder; the printed commands point into it, and Ctrl-C
// keeps it with what it held, saying where.
func TestDevnetDirIsKeptWithWhatItHeld(t *testing.T) {
	testbound.EndToEnd(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "devnet")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr := keepDevnetUntilCancelled(t, func(_, stderr string) {
		if own := printedJournal(t, stderr); filepath.Dir(own) != dir {
			t.Errorf("the printed rig journal %s is not in --dir %s", own, dir)
		}
	}, "--dir", dir)
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Fatalf("a file in --dir did not survive: %q %v", b, err)
	}
	if !strings.Contains(stderr, "kept its folder "+dir) {
		t.Fatalf("no line says where the folder is kept:\n%s", stderr)
	}
	// A devnet in a folder holding an earlier one's journal would mix two chains: refused, and
	// the journal left as it was.
	earlier := filepath.Join(dir, "rig1.db")
	if err := os.WriteFile(earlier, []byte("an earlier chain"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, "devnet", "--symbols", "SPY", "--config", "../../sources.yaml", "--instant", "--dir", dir)
	if b, _ := os.ReadFile(earlier); code == 0 || !strings.Contains(errText, "rig1.db of an earlier devnet") || string(b) != "an earlier chain" {
		t.Fatalf("exit %d: %s (journal now %q)", code, errText, b)
	}
}

// Issue 37: without --dir the temporary folder goes on Ctrl-C only when it holds nothing the
// devnet did not make; the newcomer's own rig journal, where the printed command puts it, stays.
func TestDevnetTemporaryFolderKeepsTheNewcomersJournal(t *testing.T) {
	testbound.EndToEnd(t)
	t.Setenv("TMPDIR", t.TempDir())
	var own string
	_, stderr := keepDevnetUntilCancelled(t, func(_, stderr string) {
		own = printedJournal(t, stderr)
		if err := os.WriteFile(own, []byte("the newcomer's journal"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat(own); err != nil {
		t.Fatalf("Ctrl-C deleted the newcomer's journal: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "kept its folder "+filepath.Dir(own)) || !strings.Contains(stderr, filepath.Base(own)) {
		t.Fatalf("no line says where and why the folder is kept:\n%s", stderr)
	}
	// With nothing but its own files, the temporary folder is removed.
	var folder string
	stdout, _ := keepDevnetUntilCancelled(t, func(stdout, _ string) {
		for _, line := range strings.Split(stdout, "\n") {
			if rest, ok := strings.CutPrefix(line, "devnet: journals and ledgers in "); ok {
				folder, _, _ = strings.Cut(rest, " (")
			}
		}
	})
	if folder == "" {
		t.Fatalf("the devnet did not say where its folder is:\n%s", stdout)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Fatalf("an untouched temporary folder %s stays: %v", folder, err)
	}
}
