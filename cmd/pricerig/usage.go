package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks an error as a command line cobra refused (an unknown command or flag, a
// wrong number of arguments, a flag value that does not parse, a required flag left out): exit
// 2, nothing done. Cobra returns these as plain errors, so each of its checks is routed through
// a hook that wraps what it returns (typedUsage) and nothing has to recognise its words.
func usageError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitBadInput, err: err}
}

// typedUsage routes every check cobra makes of a command line through usageError, for root and
// every command under it:
//   - flags that do not parse: the flag error func (inherited by every command);
//   - positional arguments: each command's Args validator, wrapped;
//   - a command with subcommands and nothing to run itself, given a word that names none of
//     them: an Args validator of its own. Cobra checks the root there before any hook, with a
//     plain error, and lets any other such command print its help and succeed; only a runnable
//     command's Args are validated, so such a command now runs its help when called alone.
//   - required flags and flag groups: checked in PreRunE (before cobra's own check, which
//     then finds them set).
//
// Call it once the tree is built.
func typedUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch {
		case c.HasSubCommands() && !c.Runnable():
			c.Args = unknownSubcommand
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			c.DisableFlagsInUseLine = true // its usage line is "pricerig operator", not "… [flags]"
		case c.Args != nil:
			args := c.Args
			c.Args = func(cmd *cobra.Command, a []string) error { return usageError(args(cmd, a)) }
		}
		if c.Runnable() {
			pre := c.PreRunE
			c.PreRunE = func(cmd *cobra.Command, a []string) error {
				if err := cmd.ValidateRequiredFlags(); err != nil {
					return usageError(err)
				}
				if err := cmd.ValidateFlagGroups(); err != nil {
					return usageError(err)
				}
				if pre != nil {
					return pre(cmd, a)
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// unknownSubcommand refuses any word given to a command that only holds subcommands, in cobra's
// words (with its suggestions).
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, which it sets only in its own check
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 && !cmd.DisableSuggestions {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usageError(fmt.Errorf("%s", msg))
}
