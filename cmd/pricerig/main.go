package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/redact"
)

// Exit codes shared by every command.
const (
	exitOK       = 0
	exitFailure  = 1 // the command ran and has a negative answer (no price, audit findings)
	exitBadInput = 2 // bad arguments or input: nothing was done
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go exitAfterSignal(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// signalGrace is how long a command has, after Ctrl-C or SIGTERM, to stop at its own next
// boundary (a window committed, a journal entry synced, a server shut down) before the process
// ends anyway: a signal ends every command, whatever phase it is in.
const signalGrace = 3 * time.Second

// exitAfterSignal waits for the first signal, gives the default action back to the next one (a
// second Ctrl-C ends the process at once), and ends the process if the command has not returned
// within signalGrace. Every write pricerig makes is a transaction, so an exit mid-way loses at
// most the one in flight, which a re-run redoes.
func exitAfterSignal(ctx context.Context, stop context.CancelFunc) {
	<-ctx.Done()
	stop()
	time.Sleep(signalGrace)
	fmt.Fprintf(os.Stderr, "pricerig: still running %s after the signal; exiting\n", signalGrace)
	os.Exit(exitFailure)
}

// commands holds the constructors of the subcommands; each command's file adds itself in init(),
// so adding a command touches no other file.
var commands []func(*app) *cobra.Command

func register(newCmd func(*app) *cobra.Command) { commands = append(commands, newCmd) }

// app is what every command shares: where to write, so tests can run commands in-process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput marks an error as the user's: exit 2, one line, nothing done.
func badInput(format string, args ...any) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, args...)}
}

// failed marks an error as a negative outcome: exit 1.
func failed(format string, args ...any) error {
	return &exitError{code: exitFailure, err: fmt.Errorf(format, args...)}
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "pricerig",
		Short: "Provable minute prices for NVDA, TSLA and SPY, and an AgentRig job-2 rig",
		Long: `pricerig prices NVDA, TSLA and SPY at any UTC minute from public quote sources and
reconciles them to one exact answer (price × 10^8). The same engine answers AgentRig's job 2
("Verify a price") on Robinhood Chain, backfills a local price history and audits itself.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	for _, newCmd := range commands {
		root.AddCommand(newCmd(a))
	}
	// cobra's own help and completion commands, added now rather than when it runs, so that
	// typedUsage reaches them too
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	typedUsage(root)
	return root
}

// run executes the command line and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Everything a command writes passes the redactor: the keys of every source built and the
	// credentials of an --rpc URL are registered as they are read, and no output path (an
	// error, a log line, a --json field) can print them.
	stdout, stderr = redact.Writer(stdout), redact.Writer(stderr)
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRoot(a)
	root.SetArgs(args)
	stopProfile := addProfileFlag(root)
	err := root.ExecuteContext(ctx)
	stopProfile()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "pricerig:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}
