package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// Exit 2 means nothing was done: refused input leaves no file behind.
func TestRefusedBackfillLeavesNoStore(t *testing.T) {
	_, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"reversed", []string{"--from", "2025-11-03", "--to", "2025-11-01"}, "reversed range"},
		{"unknown symbol", []string{"--from", "2025-11-03", "--to", "2025-11-03", "--symbols", "AAPL"}, "unknown symbol"},
		{"into the future", []string{"--from", "2025-11-03", "--to", "2040-01-01"}, "reaches into the future"},
		{"before the calendar, a date", []string{"--from", "1800-01-01", "--to", "2025-11-03"}, "before 1970, the first year of the market calendar"},
		{"before the calendar, a minute", []string{"--from", "1969-12-31T23:59Z", "--to", "2025-11-03"}, "before 1970, the first year of the market calendar"},
		{"before every source", []string{"--from", "1999-01-04", "--to", "1999-01-08", "--sources", "alphavantage"}, "no source serves a minute"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "prices.db")
			code, _, stderr := runCLI(t, append([]string{"backfill", "--config", config, "--sim", url, "--db", db, "--progress", "off"}, tc.args...)...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q: want 2 and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Fatalf("the refused backfill left %s behind (%v)", db, err)
			}
		})
	}
}

// An empty path names no file: every store and journal flag refuses it as bad input.
func TestEmptyStorePathIsBadInput(t *testing.T) {
	_, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	t.Setenv("PRICERIG_TEST_EMPTY_OPERATOR", "0x"+strings.Repeat("11", 32))
	for _, args := range [][]string{
		{"backfill", "--config", config, "--sim", url, "--from", "2025-11-03", "--to", "2025-11-03", "--db", ""},
		{"backfill", "export", "--db", ""},
		{"price", "--config", config, "--sim", url, "--db", "", "NVDA", "2025-11-03T14:30Z"},
		{"audit", "--config", config, "--sim", url, "--db", ""},
		{"audit", "--config", config, "--sim", url, "--journal", ""},
		{"rig", "--rpc", "http://127.0.0.1:1", "--contract", "0x0000000000000000000000000000000000000001", "--key-env", "PRICERIG_TEST_EMPTY_OPERATOR", "--journal", ""},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != exitBadInput || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, stderr %q: want 2", args, code, stderr)
		}
	}
}

// A minute before the calendar's first year is refused by name, not priced at an unaligned
// minute of New York's local mean time.
func TestPriceBeforeTheCalendarIsBadInput(t *testing.T) {
	_, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	code, out, stderr := runCLI(t, "price", "--config", config, "--sim", url, "NVDA", "1800-01-01T15:00:00Z")
	if code != exitBadInput || !strings.Contains(stderr, "before 1970, the first year of the market calendar") || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// A rig that cannot reach its chain leaves no journal behind.
func TestRigFailedStartLeavesNoJournal(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PRICERIG_TEST_LONELY_OPERATOR", hex.EncodeToString(crypto.FromECDSA(key)))
	journal := filepath.Join(t.TempDir(), "rig.db")
	code, _, stderr := runCLI(t, "rig", "--rpc", "http://127.0.0.1:1", "--contract", "0x0000000000000000000000000000000000000001",
		"--key-env", "PRICERIG_TEST_LONELY_OPERATOR", "--journal", journal)
	if code != exitFailure || !strings.Contains(stderr, "rpc") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("the rig that never started left %s behind (%v)", journal, err)
	}
}

// A negative retention of the rig's ledger is bad input, before anything is made.
func TestRigNegativeRetentionIsBadInput(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "rig.db")
	for _, flag := range []string{"--ledger-keep", "--evidence-keep"} {
		code, _, stderr := runCLI(t, "rig", "--rpc", "http://127.0.0.1:1", "--contract", "0x0000000000000000000000000000000000000001",
			"--journal", journal, flag, "-1h")
		if code != exitBadInput || !strings.Contains(stderr, "must not be negative") {
			t.Errorf("%s -1h: exit %d, stderr %q", flag, code, stderr)
		}
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("bad input left %s behind (%v)", journal, err)
	}
}
