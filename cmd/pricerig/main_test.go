package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// runCLI runs pricerig in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	snakeCaseKeys(t, args, out.Bytes())
	return code, out.String(), errOut.String()
}

// snakeKey is what every key of every --json output is (README, "JSON output").
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// dataKeys are the objects whose keys are data, not field names: a source's statuses by status
// name and the like are snake_case anyway; feed symbols (NVDA) and source names are not keys
// pricerig chose.
var dataKeys = map[string]bool{"splits": true}

// snakeCaseKeys walks every key of every JSON value a command printed (one object, or one per
// line) and fails the test on a key that is not snake_case: every command's --json output (and
// the JSON that bars, sign, task and commitment always print) is checked wherever a test runs
// it. Text output is no JSON and has no keys.
func snakeCaseKeys(t *testing.T, args []string, out []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			return // the end, or no JSON (an error): the command's own test says what it wants
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, child := range x {
					if !dataKeys[lastKey(path)] && !snakeKey.MatchString(k) {
						t.Errorf("%v: --json key %q at %s is not snake_case", args, k, path)
					}
					if !dataKeys[lastKey(path)] {
						if concept, one := secondName(lastKey(path), k); concept != "" {
							t.Errorf("%v: --json key %q at %s is a second name for %s: the one key is %q (README, JSON output)", args, k, path, concept, one)
						}
					}
					walk(path+"."+k, child)
				}
			case []any:
				for i, child := range x {
					walk(fmt.Sprintf("%s[%d]", path, i), child)
				}
			}
		}
		walk("$", v)
	}
}

// jsonVocabulary is issue 37's one vocabulary: each concept any --json output or export names,
// its one key, and the other names it went by (or might): a key in the last list fails every
// test that runs a command (snakeCaseKeys), and TestJSONVocabulary checks every output's key.
var jsonVocabulary = []struct {
	concept, key string
	others       []string
}{
	{"a source's name", "source", []string{"provider", "source_name"}}, // and "name" in a list of sources: secondName
	{"a failure's text", "error", []string{"err", "error_text", "error_message"}},
	{"a price × 10^8 (the answer's, a quote's)", "price_e8", []string{"scaled", "answer_e8", "scaled_price", "price_scaled"}},
	{"a close × 10^8", "close_e8", []string{"close_scaled", "scaled_close"}},
	{"a bar's start", "time", []string{"t", "ts", "start"}},
	{"the start of the bar a quote is the close of", "bar_time", []string{"bar"}},
	{"when a source was asked", "fetched_at", []string{"fetched"}},
	{"when a task was answered", "answered_at", nil}, // "answered" is operator status's count of tasks
	{"the answer as the contract's bytes32", "answer_bytes32", []string{"answer_hex"}},
}

// secondName says which concept a key in an object under parent names by a second name, and
// its one key; "" when the key is no second name.
func secondName(parent, key string) (concept, one string) {
	if key == "name" && (parent == "sources" || parent == "quotes") {
		return "a source's name", "source"
	}
	for _, c := range jsonVocabulary {
		if slices.Contains(c.others, key) {
			return c.concept, c.key
		}
	}
	return "", ""
}

func lastKey(path string) string {
	path = strings.TrimRight(path, "]0123456789[")
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
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
