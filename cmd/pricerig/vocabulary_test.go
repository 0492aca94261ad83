package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestJSONVocabulary is issue 37's one JSON vocabulary. Every output a newcomer meets first —
// price, explain, backfill, backfill export, bars, config check and audit, all with --json —
// names each concept of jsonVocabulary by its one key (runCLI fails the test on a second name,
// snakeCaseKeys), and between them they use every concept's key, so the list is of names that
// are printed. And no JSON tag of the packages that print JSON spells a second name, run by a
// test or not. Before, price said name/scaled/answer where explain and export said
// source/answer_e8/err and bars scaled/t.
func TestJSONVocabulary(t *testing.T) {
	_, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	db := filepath.Join(t.TempDir(), "prices.db")
	minute := "2025-11-03T14:30:00Z"
	keys := map[string]bool{}
	collect := func(args ...string) {
		t.Helper()
		code, out, stderr := runCLI(t, args...)
		if code != exitOK && code != exitFailure {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(out)))
		for {
			var v any
			if err := dec.Decode(&v); err != nil {
				break
			}
			var walk func(v any)
			walk = func(v any) {
				switch x := v.(type) {
				case map[string]any:
					for k, child := range x {
						keys[k] = true
						walk(child)
					}
				case []any:
					for _, child := range x {
						walk(child)
					}
				}
			}
			walk(v)
		}
	}
	collect("backfill", "--config", config, "--sim", url, "--from", "2025-11-03", "--to", "2025-11-03", "--symbols", "NVDA", "--db", db, "--json", "--progress", "off")
	collect("price", "--json", "--config", config, "--sim", url, "--db", db, "NVDA", "2025-11-20T16:30:00Z")
	collect("explain", "--json", "--config", config, "--db", db, "NVDA", minute)
	collect("backfill", "export", "--db", db, "--format", "jsonl", "--from", minute, "--to", "2025-11-03T14:31:00Z")
	collect("bars", "--config", config, "--sim", url, "--source", "massive", "NVDA", minute, "2025-11-03T14:32:00Z")
	collect("config", "check", "--json", "--config", config)
	collect("audit", "--json", "--config", config, "--sim", url, "--db", db, "--minutes", "1", "--symbols", "NVDA")

	for _, c := range jsonVocabulary {
		switch c.key {
		case "error", "answered_at": // a failed request's; a rig's task's (explain_test's evidence)
			continue
		}
		if !keys[c.key] {
			t.Errorf("%s: no output printed its key %q", c.concept, c.key)
		}
	}

	// every JSON tag of the packages that print JSON
	tag := regexp.MustCompile("`[^`]*json:\"([a-z0-9_]+)")
	for _, dir := range []string{".", "../../audit", "../../explain", "../../doctor", "../../feeds/history", "../../web", "../../rig/journal"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tag.FindAllStringSubmatch(string(src), -1) {
				if concept, one := secondName("", m[1]); concept != "" {
					t.Errorf("%s: JSON key %q is a second name for %s: the one key is %q", f, m[1], concept, one)
				}
			}
		}
	}
}

// TestFlagVocabulary is issue 37's one flag vocabulary, over every command: the symbols a
// command takes are --symbols (a comma-separated list; audit's old repeated --symbol is still
// read, hidden, with a note), --verbose is -v too, and the flags a newcomer types first say in
// their help what goes there (--sim URL, not "pricerig sim"; --config FILE; --symbols SYMBOLS),
// never pflag's bare type name.
func TestFlagVocabulary(t *testing.T) {
	var visit func(c *cobra.Command)
	seen := map[string]bool{}
	visit = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			where := c.CommandPath() + " --" + f.Name
			seen[f.Name] = true
			switch f.Name {
			case "symbol":
				if !f.Hidden {
					t.Errorf("%s: the symbols are --symbols; --symbol only as the old spelling, hidden", where)
				}
			case "verbose":
				if f.Shorthand != "v" {
					t.Errorf("%s has no -v", where)
				}
			case "sim", "config", "symbols", "sources", "db":
				if name, _ := pflag.UnquoteUsage(f); name == "string" || name == "strings" || name == "" {
					t.Errorf("%s: its help shows %q, not what goes there", where, name)
				}
			}
		})
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(newRoot(&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}))
	if !seen["symbols"] || !seen["verbose"] || !seen["sim"] {
		t.Fatalf("the walk missed the commands' flags: %v", seen)
	}

	// the old spelling still works, and says what to type instead
	_, url := startSim(t, auditNow)
	code, out, stderr := runCLI(t, "audit", "--sim", url, "--minutes", "1", "--symbol", "spy")
	if code != exitOK || !strings.Contains(stderr, "old spelling of --symbols") || strings.Contains(out, "NVDA") || !strings.Contains(out, "SPY") {
		t.Errorf("audit --symbol spy: exit %d\n%s\n%s", code, out, stderr)
	}
}
