package task

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	pricerig "github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/feeds"
)

func shippedRules(t *testing.T) InputRules {
	t.Helper()
	spec, err := feeds.Load(pricerig.DefaultSpec, feeds.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return SpecInputRules(spec)
}

// TestRefusalRules walks every rule of the spec's refusal: each input is refused for its own
// reason, and a good input whose minute closes by the end of the commit window is not.
func TestRefusalRules(t *testing.T) {
	rules := shippedRules(t)
	if rules.RefusalAnswer == nil || *rules.RefusalAnswer != 0 {
		t.Fatalf("the shipped spec's refusal_answer: %v", rules.RefusalAnswer)
	}
	if want := time.Date(2020, 1, 1, 5, 0, 0, 0, time.UTC); !rules.NotBefore.Equal(want) {
		t.Fatalf("calendar starts %s, want %s (midnight New York time)", rules.NotBefore, want)
	}
	deadline := time.Date(2026, 11, 27, 15, 34, 0, 0, time.UTC)
	good := func(symbol, minute string) string {
		return `data:application/json,{"symbol":"` + symbol + `","minute":"` + minute + `"}`
	}
	tests := []struct {
		name, uri string
		hash      *common.Hash // nil: the URI's own hash
		kind      string       // "" when not refused
		says      string
	}{
		{"good", good("NVDA", "2026-11-27T15:30:00Z"), nil, "", ""},
		{"closes exactly at the deadline", good("NVDA", "2026-11-27T15:33:00Z"), nil, "", ""},
		{"hash mismatch", good("NVDA", "2026-11-27T15:30:00Z"), &common.Hash{1}, "hash", "input hash does not match"},
		{"not a data URI", "https://example.com/task.json", nil, "uri", "not a data: URI"},
		{"not JSON media type", "data:text/plain,hello", nil, "uri", "media type"},
		{"undecodable base64", "data:application/json;base64,!!!", nil, "uri", "does not decode"},
		{"bad JSON", `data:application/json,{"symbol":"NVDA",`, nil, "json", "not the expected JSON"},
		{"not the job-2 shape", `data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z","size":1}`, nil, "json", "unexpected field"},
		{"unknown symbol", good("AAPL", "2026-11-27T15:30:00Z"), nil, "symbol", `unknown symbol: "AAPL"`},
		{"unaligned minute", good("NVDA", "2026-11-27T15:30:30Z"), nil, "minute", "not aligned"},
		{"before the calendar", good("SPY", "2019-12-31T21:00:00Z"), nil, "calendar", "before the spec's calendar"},
		{"closes after the commit window", good("TSLA", "2026-11-27T15:34:00Z"), nil, "window", "closes after the task's commit window"},
		{"a day in the future", good("TSLA", "2026-11-28T15:30:00Z"), nil, "window", "closes after the task's commit window"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hash := InputHash(tc.uri)
			if tc.hash != nil {
				hash = *tc.hash
			}
			in, err := rules.Refusal(tc.uri, hash, deadline)
			if tc.kind == "" {
				if err != nil || in.Symbol != "NVDA" {
					t.Fatalf("refused a good task: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("not refused: %+v", in)
			}
			if !errors.Is(err, ErrInput) || RefusalKind(err) != tc.kind {
				t.Fatalf("kind %q (%v), want %q", RefusalKind(err), err, tc.kind)
			}
			if text := RefusalText(err); !strings.Contains(text, tc.says) || strings.HasPrefix(text, ErrInput.Error()) {
				t.Fatalf("reason %q, want it to say %q", text, tc.says)
			}
			// the refusal is a typed RefusalError carrying its reason, however it was wrapped on
			// its way (the reason is not read back out of any text)
			wrapped := fmt.Errorf("task 7: %w", err)
			ie, ok := errors.AsType[*RefusalError](wrapped)
			if !ok || ie.Reason != RefusalText(err) || RefusalText(wrapped) != ie.Reason || RefusalKind(wrapped) != tc.kind {
				t.Fatalf("wrapped: %v, %+v; reason %q", ok, ie, RefusalText(wrapped))
			}
			if ie.Rule != ErrInput && !errors.Is(wrapped, ie.Rule) {
				t.Fatalf("the rule %v is not in the chain", ie.Rule)
			}
		})
	}
	// Without a deadline the window rule is not checked (pricerig task with no chain).
	if _, err := rules.Refusal(good("TSLA", "2026-11-28T15:30:00Z"), InputHash(good("TSLA", "2026-11-28T15:30:00Z")), time.Time{}); err != nil {
		t.Fatalf("window checked with no deadline: %v", err)
	}
}
