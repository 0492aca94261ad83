package main

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	rigtask "github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

func init() {
	register(newOrderCmd)
	register(newAnswerCmd)
	register(newRefundCmd)
}

// answerJSON is one task's answer as --json prints it.
type answerJSON struct {
	TaskID        uint64 `json:"task_id"`
	Phase         string `json:"phase"`
	Agreed        bool   `json:"agreed"`
	Price         string `json:"price"`
	Answer        string `json:"answer_bytes32"`
	Agree         int    `json:"agree"`
	Reveals       int    `json:"reveals"`
	Refused       bool   `json:"refused_by_spec"`
	RefusalReason string `json:"refusal_reason,omitempty"`
}

type orderedJSON struct {
	TaskID    uint64 `json:"task_id"`
	Symbol    string `json:"symbol"`
	Minute    string `json:"minute"`
	InputURI  string `json:"input_uri"`
	InputHash string `json:"input_hash"`
}

type orderOutput struct {
	Plan    planJSON      `json:"plan"`
	Sent    sentJSON      `json:"sent"`
	Tasks   []orderedJSON `json:"tasks"`
	Answers []answerJSON  `json:"answers,omitempty"`
}

func newOrderCmd(a *app) *cobra.Command {
	var f orderFlags
	cmd := &cobra.Command{
		Use:   "order SYMBOL MINUTE [SYMBOL MINUTE …]",
		Short: "Order job-2 tasks (the price of SYMBOL at a UTC minute) and, with --wait, follow them to their answer",
		Long: `Order one AgentRig job-2 task per SYMBOL MINUTE pair. Each input is built exactly as the rigs
check it (a data:application/json URI and the keccak256 of its bytes) and checked against the
spec's rules first: an input the rigs would refuse, a job with fewer active rigs than its quorum
(NotEnoughRigs) or a wrong value is explained before anything is paid. The value is exactly the
job's price (times the number of inputs; several inputs go in one orderMany). Prints the task ids.

With --wait, each task is followed through draw, commit, reveal and settle (drawing or settling
it from this key when nobody has for a while) and its answer is printed as a price and as
bytes32, with how many reveals agree. A stored 0 is a task the spec refused (refusal_answer);
the reason is printed when a rig journal that answered it is given with --journal.`,
		Example: `  pricerig order NVDA 2026-11-27T15:30Z --wait --keystore ~/.pricerig/keys --password-file ~/.pricerig/pw
  pricerig order NVDA 2026-11-27T15:30Z SPY 2026-11-27T15:30Z --network devnet --rpc http://127.0.0.1:8545 --contract 0x… --key-env PRICERIG_DEV_KEY --yes`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || len(args)%2 != 0 {
				return badInput("want SYMBOL MINUTE pairs, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runOrder(cmd.Context(), a, f, args) },
	}
	f.op.register(cmd)
	cmd.Flags().Uint32Var(&f.job, "job", 2, "the job (2: Verify a price)")
	cmd.Flags().BoolVar(&f.wait, "wait", false, "follow each task to its answer and print it")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 30*time.Minute, "give up waiting after this long")
	cmd.Flags().DurationVar(&f.actAfter, "act-after", 10*time.Second, "with --wait: draw or settle a task from this key when nobody has for this long")
	cmd.Flags().StringSliceVar(&f.journals, "journal", nil, "a rig journal to read refusal reasons from (repeatable)")
	cmd.Flags().DurationVar(&f.l1Every, "l1-interval", 12*time.Second, "with --wait on a Nitro chain (Robinhood Chain): how often its L1 makes a block, to know when a quiet chain is past an order block")
	return cmd
}

// orderFlags are order's flags.
type orderFlags struct {
	op                opFlags
	job               uint32
	wait              bool
	timeout, actAfter time.Duration
	l1Every           time.Duration // a Nitro chain's L1 block interval (ClockFor)
	journals          []string
}

// runOrder orders one task per SYMBOL MINUTE pair in args, each input checked as the rigs check
// it first, and with --wait follows them to their answers.
func runOrder(ctx context.Context, a *app, f orderFlags, args []string) error {
	var pairs []agentrig.OrderInput
	for i := 0; i < len(args); i += 2 {
		m, err := feeds.ParseMinute(args[i+1])
		if err != nil {
			return badInput("minute %q: %v", args[i+1], err)
		}
		pairs = append(pairs, agentrig.OrderInput{Symbol: strings.ToUpper(strings.TrimSpace(args[i])), Minute: m})
	}
	key, err := f.op.key.load()
	if err != nil {
		return err
	}
	spec, err := (&specFlags{config: f.op.config}).load()
	if err != nil {
		return err
	}
	conn, err := f.op.chain.connect(ctx, spec)
	if err != nil {
		return err
	}
	defer conn.Close()
	info, inputs, err := orderInputs(ctx, conn, spec, f.job, pairs)
	if err != nil {
		return err
	}
	plan, r, err := a.send(ctx, conn, key, f.op.send, conn.contract.OrderCall(f.job, info.Price, inputs))
	if err != nil {
		return err
	}
	ids := conn.contract.OrderedTasks(r)
	if len(ids) != len(inputs) {
		return failed("ordered %d inputs, the transaction %s shows %d tasks", len(inputs), r.TxHash.Hex(), len(ids))
	}
	out := orderOutput{Plan: planOut(plan), Sent: sentOut(r)}
	for i, id := range ids {
		out.Tasks = append(out.Tasks, orderedJSON{TaskID: id, Symbol: inputs[i].Symbol, Minute: inputs[i].Minute.Format(time.RFC3339),
			InputURI: inputs[i].URI, InputHash: inputs[i].Hash.Hex()})
		if !f.op.send.asJSON {
			fmt.Fprintf(a.stdout, "task %d: %s at %s, paid %s ETH\n", id, inputs[i].Symbol, inputs[i].Minute.Format(time.RFC3339), audit.FormatETH(info.Price))
		}
	}
	if !f.wait {
		if f.op.send.asJSON {
			return a.printJSON(out)
		}
		return nil
	}
	return a.followOrder(ctx, conn, key, f, spec, ids, out)
}

// orderInputs reads the job and builds the inputs as the rigs will check them, refusing before
// anything is paid an input the rigs would refuse or a job with fewer active rigs than its
// quorum.
func orderInputs(ctx context.Context, conn *chainConn, spec *feeds.Spec, job uint32, pairs []agentrig.OrderInput) (agentrig.AgentRigJobInfo, []agentrig.OrderInput, error) {
	info, err := conn.contract.Job(ctx, job)
	if err != nil {
		if reason := agentrig.RevertReason(err); reason != "" {
			return info, nil, badInput("job %d: %s", job, reason)
		}
		return info, nil, failed("%s", shownURL(err.Error()))
	}
	commitWindow, _, err := conn.contract.Windows(ctx)
	if err != nil {
		return info, nil, failed("%s", shownURL(err.Error()))
	}
	head, err := conn.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return info, nil, failed("%s", shownURL(err.Error()))
	}
	// A task ordered now is drawn at the earliest now, so its commit window ends at the
	// earliest now + the window.
	earliestDeadline := time.Unix(int64(head.Time), 0).Add(commitWindow)
	inputs, err := agentrig.BuildInputs(rigtask.SpecInputRules(spec), pairs, earliestDeadline)
	if err != nil {
		return info, nil, badInput("%v; nothing was paid", err)
	}
	if info.ActiveRigs.Cmp(big.NewInt(int64(info.Quorum))) < 0 {
		return info, nil, failed("job %d has %s active rig(s), fewer than its quorum of %d: the order would revert with NotEnoughRigs; nothing was paid",
			job, info.ActiveRigs, info.Quorum)
	}
	return info, inputs, nil
}

// followOrder follows the ordered tasks to their answers (--wait) and prints them.
func (a *app) followOrder(ctx context.Context, conn *chainConn, key rigtask.Key, f orderFlags, spec *feeds.Spec, ids []uint64, out orderOutput) error {
	waitCtx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	sender := txm.NewSender(conn.client, key, conn.chainID, txm.SenderConfig{})
	clock, err := agentrig.ClockFor(conn.network.Blocks, conn.network.Name, f.l1Every, nil)
	if err != nil {
		return badInput("network %s: %v", conn.network.Name, err)
	}
	answers, err := agentrig.Follow(waitCtx, conn.contract, sender, ids, agentrig.FollowOptions{Grace: f.actAfter, Clock: clock, Step: func(id uint64, p agentrig.Phase, detail string) {
		if detail != "" {
			detail = ": " + detail
		}
		fmt.Fprintf(a.stderr, "task %d: %s%s\n", id, phaseWord(p), detail)
	}})
	if err != nil {
		return failed("%s", shownURL(err.Error()))
	}
	outs := answersOut(ctx, spec, answers, f.journals)
	if f.op.send.asJSON {
		out.Answers = outs
		if err := a.printJSON(out); err != nil {
			return err
		}
	} else {
		printAnswers(a.stdout, outs)
	}
	return answersVerdict(outs)
}

func phaseWord(p agentrig.Phase) string {
	switch p {
	case agentrig.PhaseDraw:
		return "ordered, waiting for the draw"
	case agentrig.PhaseCommit:
		return "drawn, rigs commit"
	case agentrig.PhaseReveal:
		return "committed, rigs reveal"
	case agentrig.PhaseSettle:
		return "revealed, waiting for settle"
	}
	return p.String()
}

func newAnswerCmd(a *app) *cobra.Command {
	var (
		chain    chainFlags
		config   string
		asJSON   bool
		journals []string
	)
	cmd := &cobra.Command{
		Use:   "answer TASK…",
		Short: "Read tasks' phase and answer from the chain (phaseOf, answerOf)",
		Long: `Read each task's phase (phaseOf) and outcome (answerOf): the stored answer as a price and as
bytes32, whether it agreed, and how many reveals agree. A stored 0 is a task the spec refused
(refusal_answer); its reason is printed when a rig journal that answered it is given with
--journal. Exits 0 when every task settled in agreement on a price, 1 otherwise.`,
		Example: `  pricerig answer 12 13 --network devnet --rpc http://127.0.0.1:8545 --contract 0x…`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			ids, err := parseTaskIDs(args)
			if err != nil {
				return err
			}
			spec, err := (&specFlags{config: config}).load()
			if err != nil {
				return err
			}
			conn, err := chain.connect(ctx, spec)
			if err != nil {
				return err
			}
			defer conn.Close()
			var answers []agentrig.Answer
			for _, id := range ids {
				ans, err := conn.contract.ReadAnswer(ctx, id)
				if err != nil {
					return failed("%s", shownURL(err.Error()))
				}
				if ans.Phase == agentrig.PhaseNone {
					return badInput("there is no task %d on %s", id, conn.contract.Address.Hex())
				}
				answers = append(answers, ans)
			}
			outs := answersOut(ctx, spec, answers, journals)
			if asJSON {
				if err := a.printJSON(outs); err != nil {
					return err
				}
			} else {
				printAnswers(a.stdout, outs)
			}
			return answersVerdict(outs)
		},
	}
	chain.register(cmd)
	cmd.Flags().StringVar(&config, "config", "", "the spec `FILE` whose networks: give the contract address")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringSliceVar(&journals, "journal", nil, "a rig journal to read refusal reasons from (repeatable)")
	return cmd
}

func newRefundCmd(a *app) *cobra.Command {
	var f opFlags
	cmd := &cobra.Command{
		Use:   "refund TASK",
		Short: "Refund a task nobody drew within the hour (refund): its price is credited back to the orderer",
		Long: `Refund a task nobody drew within an hour of its order. Anyone may send it; the price is credited
to the task's orderer, who takes it out with 'pricerig operator withdraw'.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			ids, err := parseTaskIDs(args)
			if err != nil {
				return err
			}
			conn, key, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			task, err := conn.contract.Task(ctx, new(big.Int).SetUint64(ids[0]))
			if err != nil {
				return failed("%s", shownURL(err.Error()))
			}
			if agentrig.Phase(task.Phase) == agentrig.PhaseDraw {
				head, err := conn.client.HeaderByNumber(ctx, nil)
				if err != nil {
					return failed("%s", shownURL(err.Error()))
				}
				from := time.Unix(int64(task.OrderedAt), 0).Add(time.Hour)
				if now := time.Unix(int64(head.Time), 0); now.Before(from) {
					return failed("task %d can be refunded from %s (an hour after its order), %s from now by the chain's clock; nothing was sent",
						ids[0], from.UTC().Format(time.RFC3339), from.Sub(now))
				}
			}
			return a.sendAndPrint(ctx, conn, key, f.send, conn.contract.RefundCall(ids[0]),
				fmt.Sprintf("task %d refunded: %s ETH credited to its orderer %s ('pricerig operator withdraw' pays it out)", ids[0], audit.FormatETH(task.Paid), task.Orderer.Hex()))
		},
	}
	f.register(cmd)
	return cmd
}

func parseTaskIDs(args []string) ([]uint64, error) {
	var ids []uint64
	for _, s := range args {
		id, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil || id == 0 {
			return nil, badInput("task %q: want a task id (1, 2, …)", s)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// answersOut describes answers; a settled task that stored the spec's refusal_answer (0) was
// refused by the spec, for the reason the given rig journals recorded.
func answersOut(ctx context.Context, spec *feeds.Spec, answers []agentrig.Answer, journals []string) []answerJSON {
	rules := rigtask.SpecInputRules(spec)
	var out []answerJSON
	for _, ans := range answers {
		j := answerJSON{TaskID: ans.TaskID, Phase: ans.Phase.String(), Agreed: ans.Agreed, Price: ans.Price(),
			Answer: hexutil.Encode(ans.Answer[:]), Agree: ans.Agree, Reveals: ans.Reveals}
		if ans.RefusedBy(rules) {
			j.Refused = true
			j.RefusalReason = refusalReason(ctx, journals, ans.TaskID)
		}
		out = append(out, j)
	}
	return out
}

func printAnswers(w io.Writer, outs []answerJSON) {
	for _, o := range outs {
		switch {
		case o.Refused && o.RefusalReason != "":
			fmt.Fprintf(w, "task %d: settled, refused by the spec: %s (answer 0, %d of %d reveals agree)\n", o.TaskID, o.RefusalReason, o.Agree, o.Reveals)
		case o.Refused:
			fmt.Fprintf(w, "task %d: settled, refused by the spec (answer 0, %d of %d reveals agree)\n", o.TaskID, o.Agree, o.Reveals)
		case o.Phase == agentrig.PhaseSettled.String():
			verdict := "agreed"
			if !o.Agreed {
				verdict = "NOT agreed"
			}
			fmt.Fprintf(w, "task %d: settled, %s: %s (%s), %d of %d reveals agree\n", o.TaskID, verdict, o.Price, o.Answer, o.Agree, o.Reveals)
		case o.Phase == agentrig.PhaseRefunded.String():
			fmt.Fprintf(w, "task %d: refunded (nobody answered it)\n", o.TaskID)
		default:
			fmt.Fprintf(w, "task %d: %s, %d revealed so far\n", o.TaskID, o.Phase, o.Reveals)
		}
	}
}

// answersVerdict is exit 0 when every task settled in agreement on a price, 1 otherwise.
func answersVerdict(outs []answerJSON) error {
	for _, o := range outs {
		if o.Phase != agentrig.PhaseSettled.String() || !o.Agreed || o.Refused {
			return &exitError{code: exitFailure, err: fmt.Errorf("not every task settled in agreement on a price")}
		}
	}
	return nil
}

// refusalReason is why the rigs whose journals are given refused a task ("" when none says). A
// journal that does not exist or cannot be read says nothing: the answer stands without it (and
// none is made where there was none).
func refusalReason(ctx context.Context, journals []string, taskID uint64) string {
	for _, path := range journals {
		j, err := journal.OpenExistingJournal(path)
		if err != nil {
			continue
		}
		reason, found, err := j.RefusalReason(ctx, taskID)
		j.Close()
		if err == nil && found {
			return reason
		}
	}
	return ""
}
