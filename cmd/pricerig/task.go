package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/task"
)

func init() { register(newTaskCmd) }

// taskOutput is the JSON `pricerig task` prints.
type taskOutput struct {
	OK        bool   `json:"ok"`
	TaskID    uint64 `json:"task_id,omitempty"`
	Symbol    string `json:"symbol,omitempty"`
	Minute    string `json:"minute,omitempty"`
	InputHash string `json:"input_hash"`
	Error     string `json:"error,omitempty"`
	// Refused: the spec refuses the task (Error says why, Rule names the rule); every rig on the
	// spec then commits RefusalAnswer, when the spec has one.
	Refused       bool   `json:"refused"`
	Rule          string `json:"rule,omitempty"`
	RefusalAnswer string `json:"refusal_answer,omitempty"`
	// CommitDeadline is the end of the task's commit window, from the chain; WindowChecked says
	// whether the rule "the minute closes after the commit window" could be checked.
	CommitDeadline string `json:"commit_deadline,omitempty"`
	WindowChecked  bool   `json:"window_checked"`
	Verdict        string `json:"verdict"`
}

func newTaskCmd(a *app) *cobra.Command {
	var f taskFlags
	cmd := &cobra.Command{
		Use:   "task (--input-uri URI [--input-hash 0x…] | --rpc URL --contract 0x… --task N)",
		Short: "Decode and check a job-2 task input the way the rig does, and say whether the spec refuses it",
		Long: `Decode a task's input exactly as the rig does before answering it, and print the result as
JSON: {"ok", "task_id", "symbol", "minute", "input_hash", "error", "refused", "rule",
"refusal_answer", "commit_deadline", "window_checked", "verdict"}.

The input is JSON in a data URI (data:application/json,{...}, plain, percent-encoded or ;base64)
holding exactly {"symbol": S, "minute": M}, M an RFC 3339 time or unix seconds on a whole UTC
minute. input_hash is keccak256 of the whole URI string; with --input-hash (the hash the order
carries) it must match. The rig never fetches a URI: anything but a data URI is refused.

A task the spec refuses — a hash that does not match, a URI that is not data:application/json or
does not decode, JSON of another shape, a symbol that is not one of the spec's feeds, a minute not
on a whole minute, before the spec's calendar or closing after the task's commit window ends — is
answered the spec's refusal_answer by every rig, so it settles in agreement and nobody is slashed;
the verdict says "this task would be answered 0: <reason>".

With --rpc, --contract and --task the input, its hash and the end of the commit window come from
the chain (the TaskOrdered event and taskOf); otherwise the commit-window rule cannot be checked
and the verdict says so.

Exit 0 when the task would be priced; exit 2, still printing the JSON, when the spec refuses it.`,
		Example: `  pricerig task --input-uri 'data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}'
  pricerig task --rpc http://127.0.0.1:8545 --contract 0x… --task 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.fromChain = cmd.Flags().Changed("task")
			return runTask(cmd.Context(), a, f)
		},
	}
	cmd.Flags().StringVar(&f.uri, "input-uri", "", "the task's input URI")
	cmd.Flags().StringVar(&f.hash, "input-hash", "", "the inputHash the order carries, 0x plus 64 hex digits")
	cmd.Flags().StringVar(&f.rpc, "rpc", "", "JSON-RPC URL of the chain, to read the task with --task")
	cmd.Flags().StringVar(&f.contract, "contract", "", "the AgentRig contract address, with --task")
	cmd.Flags().Uint64Var(&f.taskID, "task", 0, "read task N's input, hash and commit window from the chain")
	cmd.Flags().StringSliceVar(&f.symbols, "symbols", nil, "the accepted `SYMBOLS`, comma-separated (default: the spec's feeds, "+strings.Join(task.DefaultSymbols, ",")+")")
	cmd.Flags().StringVar(&f.spec.config, "config", "", "the spec `FILE` to read (default ./sources.yaml if it exists, else the one built in)")
	return cmd
}

// taskFlags are task's flags; fromChain says --task was given.
type taskFlags struct {
	uri, hash, rpc, contract string
	taskID                   uint64
	fromChain                bool
	symbols                  []string
	spec                     specFlags
}

// runTask checks a task's input by the rig's own rules (task.InputRules.Check) and prints the
// verdict: exit 0 when it would be priced, 2 when the spec refuses it.
func runTask(ctx context.Context, a *app, f taskFlags) error {
	switch {
	case f.fromChain && (f.uri != "" || f.hash != ""):
		return badInput("give either --input-uri (and --input-hash) or --task, not both")
	case f.fromChain && (f.rpc == "" || !common.IsHexAddress(f.contract)):
		return badInput("--task needs --rpc URL and --contract 0x… (the AgentRig address)")
	case !f.fromChain && f.uri == "":
		return badInput("give --input-uri URI, or --rpc, --contract and --task to read the task from the chain")
	}
	uri := f.uri
	var want *common.Hash
	if f.hash != "" {
		h, err := parseHash32("--input-hash", f.hash)
		if err != nil {
			return err
		}
		want = (*common.Hash)(&h)
	}
	s, err := f.spec.load()
	if err != nil {
		return err
	}
	rules := task.SpecInputRules(s)
	if len(f.symbols) > 0 {
		rules.Symbols = f.symbols
	}
	out := taskOutput{}
	var deadline time.Time
	if f.fromChain {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		ordered, info, err := readTask(ctx, f.rpc, common.HexToAddress(f.contract), f.taskID)
		if err != nil {
			return err
		}
		uri, want = ordered.InputURI, (*common.Hash)(&ordered.InputHash)
		out.TaskID = f.taskID
		if info.CommitDeadline != 0 {
			deadline = time.Unix(int64(info.CommitDeadline), 0).UTC()
			out.CommitDeadline = deadline.Format(time.RFC3339)
		}
	}
	out.InputHash = task.InputHash(uri).Hex()
	out.WindowChecked = !deadline.IsZero()
	in, err := rules.Check(uri, want, deadline)
	out.verdict(rules, in, err, f.fromChain)
	if werr := json.NewEncoder(a.stdout).Encode(out); werr != nil {
		return werr
	}
	if err != nil {
		return badInput("%s", out.Verdict)
	}
	if !out.WindowChecked {
		fmt.Fprintln(a.stderr, "pricerig task: "+out.Verdict)
	}
	return nil
}

// verdict fills what the rules said of the input: priced, or refused and answered the spec's
// refusal_answer (task.InputRules.Answers), or skipped by every rig when the spec has none.
func (out *taskOutput) verdict(rules task.InputRules, in task.Input, refusal error, fromChain bool) {
	if refusal == nil {
		out.OK, out.Symbol, out.Minute = true, in.Symbol, in.Minute.UTC().Format(time.RFC3339)
		out.Verdict = fmt.Sprintf("this task would be priced: %s at %s", in.Symbol, out.Minute)
		switch {
		case !out.WindowChecked && fromChain:
			out.Verdict += "; the commit-window rule was not checked: the task is not drawn yet"
		case !out.WindowChecked:
			out.Verdict += "; the commit-window rule was not checked (give --rpc, --contract and --task)"
		}
		return
	}
	reason := task.RefusalText(refusal)
	out.Error, out.Refused, out.Rule = refusal.Error(), true, task.RefusalKind(refusal)
	if answer, ok := rules.Answers(); ok {
		out.RefusalAnswer = fmt.Sprint(int64(answer))
		out.Verdict = fmt.Sprintf("this task would be answered %s: %s", out.RefusalAnswer, reason)
	} else {
		out.Verdict = "the spec refuses this task and has no refusal_answer, so rigs skip it: " + reason
	}
}

// readTask reads a task's order and its taskOf from the chain.
func readTask(ctx context.Context, rpc string, contract common.Address, taskID uint64) (agentrig.AgentRigTaskOrdered, agentrig.AgentRigTaskInfo, error) {
	client, err := ethclient.DialContext(ctx, rpc)
	if err != nil {
		return agentrig.AgentRigTaskOrdered{}, agentrig.AgentRigTaskInfo{}, failed("rpc %s: %v", rpc, err)
	}
	defer client.Close()
	c := agentrig.NewContract(client, contract)
	ordered, err := c.TaskInput(ctx, taskID)
	if errors.Is(err, agentrig.ErrNoOrder) {
		return ordered, agentrig.AgentRigTaskInfo{}, badInput("task %d was never ordered on %s", taskID, contract.Hex())
	}
	if err != nil {
		return ordered, agentrig.AgentRigTaskInfo{}, failed("%v", err)
	}
	info, err := c.Task(ctx, new(big.Int).SetUint64(taskID))
	if err != nil {
		return ordered, info, failed("%v", err)
	}
	return ordered, info, nil
}
