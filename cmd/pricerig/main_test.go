package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLI runs pricerig in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUnknownCommandIsBadInput(t *testing.T) {
	code, _, stderr := runCLI(t, "no-such-command")
	if code != exitBadInput || !strings.Contains(stderr, "unknown command") {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "pricerig ") {
		t.Fatalf("code %d out %q", code, out)
	}
}
