package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAgreeCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want agreeOutput
	}{
		{
			name: "numeric two agree one slashed",
			args: []string{"--kind", "numeric", "--quorum", "3", "--tolerance-bps", "50", "17712000000", "17705000000", "18000000000"},
			want: agreeOutput{Agreed: true, Answer: "0x000000000000000000000000000000000000000000000000000000041fb7ac00", Median: "17712000000", Agree: 2, Reveals: 3, Verdicts: []bool{true, true, false}},
		},
		{
			name: "numeric even count takes the lower middle",
			args: []string{"--kind", "numeric", "--quorum", "4", "--tolerance-bps", "50", "400", "100", "300", "200"},
			want: agreeOutput{Agreed: false, Answer: "0x00000000000000000000000000000000000000000000000000000000000000c8", Median: "200", Agree: 1, Reveals: 4, Verdicts: []bool{false, false, false, true}},
		},
		{
			name: "quorum 5 with 3 reveals",
			args: []string{"--kind", "numeric", "--quorum", "5", "--tolerance-bps", "50", "1000", "1000", "1005"},
			want: agreeOutput{Agreed: true, Answer: "0x00000000000000000000000000000000000000000000000000000000000003e8", Median: "1000", Agree: 3, Reveals: 3, Verdicts: []bool{true, true, true}},
		},
		{
			name: "exact tie is no agreement",
			args: []string{"--kind", "exact", "--quorum", "4", "1", "2", "1", "2"},
			want: agreeOutput{Agreed: false, Answer: "0x0000000000000000000000000000000000000000000000000000000000000000", Agree: 0, Reveals: 4, Verdicts: []bool{false, false, false, false}},
		},
		{
			name: "exact majority with hex answers",
			args: []string{"--kind", "exact", "--quorum", "3", "0x" + strings.Repeat("ab", 32), "0x" + strings.Repeat("ab", 32), "7"},
			want: agreeOutput{Agreed: true, Answer: "0x" + strings.Repeat("ab", 32), Agree: 2, Reveals: 3, Verdicts: []bool{true, true, false}},
		},
		{
			name: "single reveal",
			args: []string{"--kind", "numeric", "--quorum", "2", "--tolerance-bps", "50", "5"},
			want: agreeOutput{Agreed: false, Answer: "0x0000000000000000000000000000000000000000000000000000000000000005", Median: "5", Agree: 1, Reveals: 1, Verdicts: []bool{true}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"agree"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got agreeOutput
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tc.want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("got  %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

func TestAgreeBadArguments(t *testing.T) {
	tests := [][]string{
		{"--kind", "numeric", "--quorum", "1", "--tolerance-bps", "50", "1"},
		{"--kind", "numeric", "--quorum", "6", "--tolerance-bps", "50", "1"},
		{"--kind", "numeric", "--quorum", "3", "--tolerance-bps", "0", "1"},
		{"--kind", "numeric", "--quorum", "3", "--tolerance-bps", "2001", "1"},
		{"--kind", "numeric", "--quorum", "3", "1"},
		{"--kind", "exact", "--quorum", "3", "--tolerance-bps", "5", "1"},
		{"--kind", "fuzzy", "--quorum", "3", "1"},
		{"--kind", "numeric", "--quorum", "3", "--tolerance-bps", "50", "12.5"},
		{"--kind", "numeric", "--quorum", "3", "--tolerance-bps", "50", "0x1234"},
		{"--kind", "numeric", "--quorum", "2", "--tolerance-bps", "50", "1", "1", "1"},
		{"--quorum", "3", "1"},
		{"--kind", "numeric", "--quorum", "three", "1"},
	}
	for _, args := range tests {
		code, out, stderr := runCLI(t, append([]string{"agree"}, args...)...)
		if code != exitBadInput || out != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stderr == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, out, stderr)
		}
	}
}
