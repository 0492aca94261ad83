package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// Every command line cobra refuses reaches run as a typed usage error (exit 2), through the
// hook typedUsage set for that check, not by anything reading cobra's words: each case runs the
// root directly and asserts the error's type. The words stay for the user.
func TestCobraRefusalsAreTypedUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // what the user reads
	}{
		{"a flag typo", []string{"price", "--jsn", "NVDA", "2026-11-24T15:00Z"}, "unknown flag: --jsn"},
		{"a shorthand flag nobody has", []string{"price", "-q", "NVDA", "2026-11-24T15:00Z"}, "unknown shorthand flag"},
		{"a flag value that does not parse", []string{"agree", "--kind", "numeric", "--quorum", "three", "1"}, "invalid argument"},
		{"an unknown command", []string{"prise", "NVDA"}, `unknown command "prise" for "pricerig"`},
		{"an unknown subcommand", []string{"operator", "regster"}, `unknown command "regster" for "pricerig operator"`},
		{"an unknown config subcommand", []string{"config", "chek"}, "Did you mean this?\n\tcheck"},
		{"too few arguments", []string{"price", "NVDA"}, "accepts 2 arg(s), received 1"},
		{"too many arguments", []string{"version", "now"}, `unknown command "now" for "pricerig version"`},
		{"none where one is needed", []string{"answer"}, "requires at least 1 arg(s)"},
		{"a required flag left out", []string{"bars", "NVDA", "2026-11-24T15:00Z", "2026-11-24T15:10Z"}, `required flag(s) "source" not set`},
		{"required flags of a subcommand", []string{"backfill", "--to", "2025-11-04"}, `required flag(s) "from" not set`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			root := newRoot(&app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut})
			root.SetArgs(tc.args)
			err := root.ExecuteContext(context.Background())
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitBadInput {
				t.Fatalf("%q: %T %v, want an exitError of code %d", tc.args, err, err, exitBadInput)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q: %q does not say %q", tc.args, err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("%q printed %q", tc.args, out.String())
			}
			if code, _, stderr := runCLI(t, tc.args...); code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("%q: exit %d, %q", tc.args, code, stderr)
			}
		})
	}
}

// A command that only holds subcommands prints its help when called alone, as before.
func TestAGroupAloneIsHelp(t *testing.T) {
	for _, group := range []string{"operator", "config"} {
		code, out, stderr := runCLI(t, group)
		if code != exitOK || !strings.Contains(out, "Available Commands:") || stderr != "" {
			t.Errorf("%s: exit %d, %q, %q", group, code, out, stderr)
		}
		if strings.Contains(out, "pricerig "+group+" [flags]") {
			t.Errorf("%s's usage offers to run it with flags alone:\n%s", group, out)
		}
	}
}
