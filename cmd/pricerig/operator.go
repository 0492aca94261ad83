package main

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

func init() { register(newOperatorCmd) }

// opFlags are what every operator subcommand shares: the chain, the key, the spec (for the
// per-network contract address), and how to send.
type opFlags struct {
	chain  chainFlags
	key    keyFlags
	config string
	send   sendFlags
}

func (f *opFlags) register(cmd *cobra.Command) {
	f.registerChainKeyConfig(cmd)
	f.send.register(cmd)
}

// registerReading is register without --yes, for a subcommand that sends nothing (status).
func (f *opFlags) registerReading(cmd *cobra.Command) {
	f.registerChainKeyConfig(cmd)
	f.send.registerJSON(cmd)
}

func (f *opFlags) registerChainKeyConfig(cmd *cobra.Command) {
	f.chain.register(cmd)
	f.key.register(cmd)
	cmd.Flags().StringVar(&f.config, "config", "", "the spec `FILE`: its networks: give the contract address, its feeds and calendar the inputs order accepts (default ./sources.yaml if it exists, else the one built in)")
}

// open loads the key and connects to the chain.
func (f *opFlags) open(ctx context.Context) (*chainConn, task.Key, error) {
	key, err := f.key.load()
	if err != nil {
		return nil, task.Key{}, err
	}
	spec, err := (&specFlags{config: f.config}).load()
	if err != nil {
		return nil, task.Key{}, err
	}
	conn, err := f.chain.connect(ctx, spec)
	if err != nil {
		return nil, task.Key{}, err
	}
	return conn, key, nil
}

// txOutput is what a sending operator command prints with --json.
type txOutput struct {
	Plan  planJSON `json:"plan"`
	Sent  sentJSON `json:"sent"`
	RigID uint64   `json:"rig_id,omitempty"`
}

func newOperatorCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Register, stake, deactivate and withdraw AgentRig rigs; set a relayer's fee; show where your rigs stand",
		Long: `Everything an operator does on chain besides answering tasks (that is 'pricerig rig').

Every sending command first simulates its transaction with eth_call (a transaction the contract
would refuse is not sent, and its reason is printed), shows what it will send (function, value,
gas estimate, fee) and asks for confirmation on a terminal; --yes sends without asking, and
without a terminal nothing is sent unless --yes is given. The key comes from a keystore
(--keystore, --password-file) or a hex key in a variable (--key-env), as for 'pricerig rig'.
Amounts are ETH, exact to the wei.`,
		Example: `  pricerig operator register --job 2 --stake 0.0001 --keystore ~/.pricerig/keys --password-file ~/.pricerig/pw
  pricerig operator status --keystore ~/.pricerig/keys --password-file ~/.pricerig/pw
  pricerig operator withdraw --key-env PRICERIG_DEV_KEY --network devnet --rpc http://127.0.0.1:8545 --contract 0x… --yes`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newOperatorRegisterCmd(a), newOperatorStakeCmd(a), newOperatorDeactivateCmd(a), newOperatorFeeCmd(a),
		newOperatorWithdrawCmd(a), newOperatorStatusCmd(a))
	return cmd
}

func newOperatorRegisterCmd(a *app) *cobra.Command {
	var (
		f        opFlags
		job      uint32
		stake    string
		operator string
	)
	cmd := &cobra.Command{
		Use:   "register --job 2 --stake ETH",
		Short: "Register a rig on a job with a stake (registerRig); prints the rig id",
		Long: `Register a rig on a job with a stake of at least the job's slash (registerRig). The key
sending it owns the rig (gets the stake back); the operator, who commits and reveals, is the
same key unless --operator names another. Prints the new rig id.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			wei, err := parseETHFlag("--stake", stake)
			if err != nil {
				return err
			}
			conn, key, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer conn.Close()
			op := key.Address
			if operator != "" {
				if op, err = parseAddress("--operator", operator); err != nil {
					return err
				}
			}
			plan, r, err := a.send(cmd.Context(), conn, key, f.send, conn.contract.RegisterCall(job, op, wei))
			if err != nil {
				return err
			}
			id, err := conn.contract.RegisteredRig(r)
			if err != nil {
				return failed("%v", err)
			}
			if f.send.asJSON {
				return a.printJSON(txOutput{Plan: planOut(plan), Sent: sentOut(r), RigID: id})
			}
			fmt.Fprintf(a.stdout, "rig %d registered on job %d: operator %s, stake %s ETH\n", id, job, op.Hex(), audit.FormatETH(wei))
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().Uint32Var(&job, "job", 2, "the job to answer (2: Verify a price)")
	cmd.Flags().StringVar(&stake, "stake", "", "the stake in ETH, at least the job's slash (each task the rig is drawn in locks one slash) (required)")
	cmd.Flags().StringVar(&operator, "operator", "", "the operator address (default: the sending key)")
	_ = cmd.MarkFlagRequired("stake")
	return cmd
}

// pickRig returns --rig, or the one rig the key owns or operates.
func pickRig(ctx context.Context, conn *chainConn, key task.Key, rigID uint64, activeOnly bool) (uint64, error) {
	if rigID != 0 {
		return rigID, nil
	}
	infos, ids, err := conn.contract.RigsOf(ctx, key.Address)
	if err != nil {
		return 0, failed("%s", shownURL(err.Error()))
	}
	var fit []uint64
	for _, id := range ids {
		if !activeOnly || infos[id].Active {
			fit = append(fit, id)
		}
	}
	switch len(fit) {
	case 0:
		return 0, badInput("%s has no rig%s on this contract; register one first", key.Address.Hex(), map[bool]string{true: " active", false: ""}[activeOnly])
	case 1:
		return fit[0], nil
	}
	return 0, badInput("%s has rigs %v: choose one with --rig", key.Address.Hex(), fit)
}

// sendAndPrint sends a call and prints its outcome.
func (a *app) sendAndPrint(ctx context.Context, conn *chainConn, key task.Key, f sendFlags, call txm.Call, done string) error {
	plan, r, err := a.send(ctx, conn, key, f, call)
	if err != nil {
		return err
	}
	if f.asJSON {
		return a.printJSON(txOutput{Plan: planOut(plan), Sent: sentOut(r)})
	}
	fmt.Fprintln(a.stdout, done)
	return nil
}

func newOperatorStakeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "stake", Short: "Add stake to a rig, or move unlocked stake to your credits", Args: cobra.NoArgs}
	for _, add := range []bool{true, false} {
		var (
			f      opFlags
			rigID  uint64
			amount string
		)
		use, short := "add --amount ETH [--rig ID]", "Add stake to a rig (addStake)"
		if !add {
			use, short = "withdraw --amount ETH|all [--rig ID]", "Move unlocked stake to your credits (withdrawStake); take it out with 'operator withdraw'"
		}
		sub := &cobra.Command{
			Use: use, Short: short, Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ctx := cmd.Context()
				all := !add && strings.EqualFold(strings.TrimSpace(amount), "all")
				var wei *big.Int
				if !all {
					var err error
					if wei, err = parseETHFlag("--amount", amount); err != nil {
						return err
					}
				}
				conn, key, err := f.open(ctx)
				if err != nil {
					return err
				}
				defer conn.Close()
				id, err := pickRig(ctx, conn, key, rigID, false)
				if err != nil {
					return err
				}
				if add {
					return a.sendAndPrint(ctx, conn, key, f.send, conn.contract.AddStakeCall(id, wei), fmt.Sprintf("rig %d: stake added %s ETH", id, audit.FormatETH(wei)))
				}
				if all {
					info, err := conn.contract.Rig(ctx, id)
					if err != nil {
						return failed("%s", shownURL(err.Error()))
					}
					wei = new(big.Int).Sub(info.Stake, info.Locked)
				}
				return a.sendAndPrint(ctx, conn, key, f.send, conn.contract.WithdrawStakeCall(id, wei),
					fmt.Sprintf("rig %d: %s ETH of stake moved to your credits; 'pricerig operator withdraw' pays them out", id, audit.FormatETH(wei)))
			},
		}
		f.register(sub)
		sub.Flags().Uint64Var(&rigID, "rig", 0, "the rig id (default: the key's only rig)")
		sub.Flags().StringVar(&amount, "amount", "", "ETH (required)")
		_ = sub.MarkFlagRequired("amount")
		cmd.AddCommand(sub)
	}
	return cmd
}

func newOperatorDeactivateCmd(a *app) *cobra.Command {
	var (
		f     opFlags
		rigID uint64
	)
	cmd := &cobra.Command{
		Use:   "deactivate [--rig ID]",
		Short: "Take a rig out of future draws (deactivateRig); its stake can then be withdrawn once unlocked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			conn, key, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			id, err := pickRig(ctx, conn, key, rigID, true)
			if err != nil {
				return err
			}
			return a.sendAndPrint(ctx, conn, key, f.send, conn.contract.DeactivateCall(id),
				fmt.Sprintf("rig %d deactivated: 'pricerig operator stake withdraw --rig %d --amount all' frees its stake once its tasks settle", id, id))
		},
	}
	f.register(cmd)
	cmd.Flags().Uint64Var(&rigID, "rig", 0, "the rig id (default: the key's only active rig)")
	return cmd
}

func newOperatorWithdrawCmd(a *app) *cobra.Command {
	var f opFlags
	cmd := &cobra.Command{
		Use:   "withdraw",
		Short: "Pay out everything credited to the key: earnings, staker shares, withdrawn stake, refunds (withdraw)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			conn, key, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			credits, err := conn.contract.Credits(ctx, key.Address)
			if err != nil {
				return failed("%s", shownURL(err.Error()))
			}
			plan, r, err := a.send(ctx, conn, key, f.send, conn.contract.WithdrawCall())
			if err != nil {
				return err
			}
			if f.send.asJSON {
				return a.printJSON(struct {
					txOutput
					Withdrawn string `json:"withdrawn_wei"`
				}{txOutput{Plan: planOut(plan), Sent: sentOut(r)}, credits.String()})
			}
			fmt.Fprintf(a.stdout, "withdrew %s ETH (%s wei) to %s\n", audit.FormatETH(credits), credits, key.Address.Hex())
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

func newOperatorFeeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "fee", Short: "Consent to a relayer's fee on your rig earnings (EIP-712 OperatorFee)", Args: cobra.NoArgs}
	var (
		f       opFlags
		bps     uint16
		payee   string
		relayer string
		nonce   string
	)
	set := &cobra.Command{
		Use:   "set --bps N --payee 0x… [--relayer 0x…]",
		Short: "Sign an OperatorFee consent and send it (setOperatorFee), or print it for a relayer to send",
		Long: `Sign the EIP-712 OperatorFee(operator, bps, payee, nonce) consent with the operator key, in the
domain of the chain's real id and the contract, and send setOperatorFee. With --relayer the
signed consent is printed (JSON) for that relayer to send instead, and nothing is sent; the
operator then needs no gas. bps 0 ends an arrangement.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if bps > 10000 {
				return badInput("--bps %d is over 10000", bps)
			}
			to, err := parseAddress("--payee", payee)
			if err != nil {
				return err
			}
			conn, key, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			var n *big.Int
			if nonce != "" {
				if n, err = parseUint256("--nonce", nonce); err != nil {
					return err
				}
			} else if n, err = conn.contract.NextFeeNonce(ctx, key.Address); err != nil {
				return failed("%s", shownURL(err.Error()))
			}
			fee := task.OperatorFee{Operator: key.Address, Bps: bps, Payee: to, Nonce: n}
			domain := task.Domain{ChainID: conn.chainID, Contract: conn.contract.Address}
			digest, err := domain.OperatorFeeDigest(fee)
			if err != nil {
				return failed("%v", err)
			}
			sig, err := task.NewKeySigner(key.Private).SignDigest(digest)
			if err != nil {
				return failed("signing: %v", err)
			}
			call := conn.contract.SetOperatorFeeCall(fee, sig)
			if relayer != "" {
				rel, err := parseAddress("--relayer", relayer)
				if err != nil {
					return err
				}
				// The relayer's simulation: would the contract take the consent from it?
				if _, err := txm.Prepare(ctx, conn.client, rel, call); err != nil {
					return failed("%v", err)
				}
				return a.printJSON(map[string]any{
					"operator": key.Address.Hex(), "bps": bps, "payee": to.Hex(), "nonce": n.String(),
					"chain_id": conn.chainID.Uint64(), "contract": conn.contract.Address.Hex(),
					"digest": digest.Hex(), "signature": hexutil.Encode(sig), "relayer": rel.Hex(),
					"calldata": hexutil.Encode(call.Data),
				})
			}
			return a.sendAndPrint(ctx, conn, key, f.send, call,
				fmt.Sprintf("fee consent recorded: %s takes %d bps of %s's rig earnings (nonce %s)", to.Hex(), bps, key.Address.Hex(), n))
		},
	}
	f.register(set)
	set.Flags().Uint16Var(&bps, "bps", 0, "basis points of rig earnings the payee takes, 0 to 10000")
	set.Flags().StringVar(&payee, "payee", "", "the address that receives the fee (required)")
	set.Flags().StringVar(&relayer, "relayer", "", "print the signed consent for this relayer to send, instead of sending it")
	set.Flags().StringVar(&nonce, "nonce", "", "the consent's nonce (default: the first unused one)")
	_ = set.MarkFlagRequired("bps")
	_ = set.MarkFlagRequired("payee")
	cmd.AddCommand(set)
	return cmd
}

// statusJSON is `operator status --json`.
type statusJSON struct {
	Network      string          `json:"network"`
	ChainID      uint64          `json:"chain_id"`
	Contract     string          `json:"contract"`
	Account      string          `json:"account"`
	BalanceWei   string          `json:"balance_wei"`
	CreditsWei   string          `json:"credits_wei"`
	FeeConsent   *feeConsentJSON `json:"fee_consent"`
	Rigs         []rigStatusJSON `json:"rigs"`
	GasPerTask   uint64          `json:"gas_per_task"`
	TasksPerDay  int             `json:"tasks_per_day"`
	DayOfGasWei  string          `json:"day_of_gas_wei,omitempty"`
	BalanceCover string          `json:"balance_covers,omitempty"`
	// Accounts, with --journal: what the key's rigs paid and earned (operator_accounts.go).
	Accounts *accountsJSON `json:"accounts,omitempty"`
}

type feeConsentJSON struct {
	Payee string `json:"payee"`
	Bps   uint16 `json:"bps"`
	Nonce string `json:"nonce"`
}

type rigStatusJSON struct {
	RigID     uint64 `json:"rig_id"`
	Job       uint32 `json:"job"`
	Operator  string `json:"operator"`
	Owner     string `json:"owner"`
	Active    bool   `json:"active"`
	StakeWei  string `json:"stake_wei"`
	LockedWei string `json:"locked_wei"`
	SlashWei  string `json:"slash_wei"`
	Drawable  bool   `json:"drawable"`
	Why       string `json:"why_not_drawable,omitempty"`
	Answered  int    `json:"answered"`
	Agreed    int    `json:"agreed"`
	Missed    int    `json:"missed"`
	Slashed   int    `json:"slashed"`
}

func newOperatorStatusCmd(a *app) *cobra.Command {
	var (
		f           opFlags
		fromBlock   uint64
		tasksPerDay int
		journal     string
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Every rig of the key: stake, locks, whether it can be drawn, tasks answered/agreed/missed/slashed, credits, fee consent, gas money",
		Long: `Show every rig the key operates or owns: job, stake, locked stake, active, whether it can be
drawn now (active and its unlocked stake covers one more slash), and the tasks it answered,
agreed on, missed and was slashed for (from the chain's events since --from-block); the key's
credits, its fee consent, and its balance against the gas a day of tasks needs (the gas of the
rig's latest commit and reveal, a batch's over the tasks it carried, with its share of its
latest settled task's draw and settle, times --tasks-per-day, at today's fee). With --journal (the rig's
journal), the accounts of the key's rigs over the last day and in total: gas paid, earned,
slashed and the margin, in ETH to the wei, the transactions sent and those mined reverted; and
the same for the whole journal (a relayer's draws and settles, the process's other rigs).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			conn, key, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			if journal != "" {
				if err := journalMustExist(journal); err != nil {
					return err
				}
			}
			st, err := operatorStatus(ctx, conn, key.Address, fromBlock, tasksPerDay)
			if err != nil {
				return failed("%s", shownURL(err.Error()))
			}
			if journal != "" {
				ids := make([]uint64, 0, len(st.Rigs))
				for _, r := range st.Rigs {
					ids = append(ids, r.RigID)
				}
				if st.Accounts, err = journalAccounts(ctx, journal, ids, time.Now()); err != nil {
					return err
				}
			}
			if f.send.asJSON {
				return a.printJSON(st)
			}
			printStatus(a, st)
			return nil
		},
	}
	f.registerReading(cmd)
	cmd.Flags().Uint64Var(&fromBlock, "from-block", 0, "count tasks from this block on")
	cmd.Flags().IntVar(&tasksPerDay, "tasks-per-day", 1440, "tasks a day the gas estimate assumes (1440: one a minute)")
	cmd.Flags().StringVar(&journal, "journal", "", "the rig's journal (SQLite path or postgres:// URL): show what the key's rigs paid and earned")
	return cmd
}

func operatorStatus(ctx context.Context, conn *chainConn, account common.Address, from uint64, tasksPerDay int) (statusJSON, error) {
	st := statusJSON{Network: conn.network.Name, ChainID: conn.chainID.Uint64(), Contract: conn.contract.Address.Hex(), Account: account.Hex(),
		TasksPerDay: tasksPerDay, Rigs: []rigStatusJSON{}}
	bal, err := conn.client.BalanceAt(ctx, account, nil)
	if err != nil {
		return st, err
	}
	st.BalanceWei = bal.String()
	credits, err := conn.contract.Credits(ctx, account)
	if err != nil {
		return st, err
	}
	st.CreditsWei = credits.String()
	fee, err := conn.contract.OperatorFeeOf(ctx, account)
	if err != nil {
		return st, err
	}
	if fee.Payee != (common.Address{}) {
		st.FeeConsent = &feeConsentJSON{Payee: fee.Payee.Hex(), Bps: fee.Bps, Nonce: fee.Nonce.String()}
	}
	infos, ids, err := conn.contract.RigsOf(ctx, account)
	if err != nil {
		return st, err
	}
	for _, id := range ids {
		s, err := conn.contract.Status(ctx, id, infos[id], from)
		if err != nil {
			return st, err
		}
		st.Rigs = append(st.Rigs, rigStatusJSON{RigID: id, Job: s.JobID, Operator: s.Operator.Hex(), Owner: s.Owner.Hex(), Active: s.Active,
			StakeWei: s.Stake.String(), LockedWei: s.Locked.String(), SlashWei: s.Slash.String(), Drawable: s.Drawable, Why: s.Why,
			Answered: s.Answered, Agreed: s.Agreed, Missed: s.Missed, Slashed: s.Slashed})
		if gas := s.GasPerTask(); gas > st.GasPerTask && s.Operator == account {
			st.GasPerTask = gas
		}
	}
	if st.GasPerTask > 0 {
		price, err := agentrig.GasPrice(ctx, conn.client)
		if err != nil {
			return st, err
		}
		day := agentrig.NewGasDay(st.GasPerTask, tasksPerDay, price)
		st.DayOfGasWei = day.Wei.String()
		if days := day.Covers(bal); days != nil {
			st.BalanceCover = days.String() + " days"
		}
	}
	return st, nil
}

func printStatus(a *app, st statusJSON) {
	w := a.stdout
	bal, _ := new(big.Int).SetString(st.BalanceWei, 10)
	credits, _ := new(big.Int).SetString(st.CreditsWei, 10)
	fmt.Fprintf(w, "%s on %s (chain id %d), AgentRig %s\n", st.Account, st.Network, st.ChainID, st.Contract)
	fmt.Fprintf(w, "balance %s ETH, credits %s ETH (withdraw with 'pricerig operator withdraw')\n", audit.FormatETH(bal), audit.FormatETH(credits))
	if st.FeeConsent != nil {
		fmt.Fprintf(w, "fee consent: %s takes %d bps of rig earnings (nonce %s)\n", st.FeeConsent.Payee, st.FeeConsent.Bps, st.FeeConsent.Nonce)
	} else {
		fmt.Fprintln(w, "fee consent: none")
	}
	if len(st.Rigs) == 0 {
		fmt.Fprintln(w, "no rigs: 'pricerig operator register --job 2 --stake ETH' registers one")
	}
	for _, r := range st.Rigs {
		stake, _ := new(big.Int).SetString(r.StakeWei, 10)
		locked, _ := new(big.Int).SetString(r.LockedWei, 10)
		state := "active"
		if !r.Active {
			state = "deactivated"
		}
		draw := "can be drawn"
		if !r.Drawable {
			draw = "cannot be drawn: " + r.Why
		}
		fmt.Fprintf(w, "rig %d  job %d  %s  stake %s ETH (%s locked)  %s\n", r.RigID, r.Job, state, audit.FormatETH(stake), audit.FormatETH(locked), draw)
		fmt.Fprintf(w, "        tasks: %d answered, %d agreed, %d missed, %d slashed outside the agreement\n", r.Answered, r.Agreed, r.Missed, r.Slashed)
	}
	if st.DayOfGasWei != "" {
		day, _ := new(big.Int).SetString(st.DayOfGasWei, 10)
		fmt.Fprintf(w, "gas: %d per task (latest commit + reveal), %d tasks a day ≈ %s ETH a day; the balance covers %s\n",
			st.GasPerTask, st.TasksPerDay, audit.FormatETH(day), st.BalanceCover)
	} else {
		fmt.Fprintln(w, "gas: no commit or reveal sent by this key yet, so no measured gas per task")
	}
	if st.Accounts != nil {
		printAccounts(w, st.Accounts)
	}
}
