package doctor

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/shopspring/decimal"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// DefaultTasksPerDay is the tasks a day a rig is reckoned to answer: one a minute, as `pricerig
// operator status` reckons them.
const DefaultTasksPerDay = 1440

// payer is a key that pays gas: an operator's (direct) or the relayer's, with the rigs it pays
// for and the gas of a task as their latest commit and reveal measured it, per task of a batch,
// with a rig's share of the task's draw and settle (0: none yet). shared is that share, part of
// gasPerTask.
type payer struct {
	addr       common.Address
	rigs       int
	gasPerTask uint64
	shared     uint64
}

// checkRigs checks each operator's rig on the job (active, its free stake against the slash),
// then each key that pays their gas: its balance in days of tasks at today's gas price, and the
// gas price past which a task costs more than it earns.
func (c *Chain) checkRigs(ctx context.Context, ag *agentrig.Contract, jobID uint32, job agentrig.AgentRigJobInfo, head *types.Header) []Check {
	switch {
	case c.KeysErr != nil:
		return []Check{{Check: "rig", Verdict: Fail, Problem: KeysUnreadable, Detail: redact.String(c.KeysErr.Error()),
			Fix: "give the operator keys as pricerig rig takes them: --keystore DIR with its password, or --key-env VAR"}}
	case len(c.Operators) == 0:
		return []Check{{Check: "rig", Verdict: Warn, Problem: NoKeys, Detail: "no operator keys given: the rigs, their stake and their gas are not checked",
			Fix: "add the rigs' keys as pricerig rig takes them (--keystore DIR or --key-env VAR)"}}
	}
	from := c.FromBlock
	if from == 0 && head != nil && head.Number.Uint64() > LogsBack {
		from = head.Number.Uint64() - LogsBack
	}
	active, err := ag.RigIDsOf(ctx, jobID, c.Operators)
	if err != nil {
		return []Check{unreachable(Check{Check: "rig"}, c.RPC, err)}
	}
	var out []Check
	var payers []*payer
	payerOf := func(a common.Address) *payer {
		for _, p := range payers {
			if p.addr == a {
				return p
			}
		}
		p := &payer{addr: a}
		payers = append(payers, p)
		return p
	}
	for _, op := range c.Operators {
		line := Check{Check: "rig", Subject: op.Hex()}
		id, ok := active[op]
		if !ok {
			out = append(out, c.noActiveRig(ctx, ag, line, jobID, op))
			continue
		}
		info, err := ag.Rig(ctx, id)
		if err != nil {
			out = append(out, unreachable(line, c.RPC, err))
			continue
		}
		st, err := ag.Status(ctx, id, info, from)
		if err != nil { // the logs may be out of the node's range: the stake still says enough
			st = agentrig.RigStatus{RigID: id, Stake: info.Stake, Locked: info.Locked, Slash: job.Slash, Active: info.Active}
		}
		out = append(out, stakeLine(line, jobID, st))
		paid := op
		if c.Relayer != nil {
			paid = *c.Relayer
		}
		p := payerOf(paid)
		p.rigs++
		if gas := st.GasPerTask(); gas > p.gasPerTask {
			p.gasPerTask, p.shared = gas, st.SharedGas
		}
	}
	if len(payers) == 0 {
		return out
	}
	price, err := agentrig.GasPrice(ctx, c.Node)
	if err != nil {
		return append(out, unreachable(Check{Check: "gas"}, c.RPC, err))
	}
	if c.MaxGasPrice != nil {
		out = append(out, capLine(price, c.MaxGasPrice))
	}
	share := agentrig.RigShare(job.Price, int(job.Quorum))
	for _, p := range payers {
		bal, err := c.Node.BalanceAt(ctx, p.addr, nil)
		if err != nil {
			out = append(out, unreachable(Check{Check: "gas", Subject: p.addr.Hex()}, c.RPC, err))
			continue
		}
		out = append(out, c.gasLine(p, bal, price, share, from))
		if p.gasPerTask > 0 {
			out = append(out, breakEven(p, price, share))
		}
	}
	return out
}

// noActiveRig tells an operator with a deactivated rig on the job from one with none.
func (c *Chain) noActiveRig(ctx context.Context, ag *agentrig.Contract, line Check, jobID uint32, op common.Address) Check {
	line.Verdict = Fail
	infos, ids, err := ag.RigsOf(ctx, op)
	if err != nil {
		return unreachable(line, c.RPC, err)
	}
	for _, id := range ids {
		if infos[id].JobId == jobID && infos[id].Operator == op {
			line.Problem = RigInactive
			line.Detail = fmt.Sprintf("rig %d on job %d is deactivated: it is never drawn", id, jobID)
			line.Fix = fmt.Sprintf("register a new rig: pricerig operator register --job %d --stake ETH", jobID)
			return line
		}
	}
	line.Problem = NoRig
	line.Detail = fmt.Sprintf("%s operates no rig on job %d", op.Hex(), jobID)
	line.Fix = fmt.Sprintf("register one: pricerig operator register --job %d --stake ETH (at least the job's slash)", jobID)
	return line
}

// stakeLine judges a rig's stake: every task it is drawn in locks one slash, so it is drawn only
// while its unlocked stake covers one more.
func stakeLine(line Check, jobID uint32, st agentrig.RigStatus) Check {
	free := new(big.Int).Sub(st.Stake, st.Locked)
	slashes := "no slash"
	if st.Slash.Sign() > 0 {
		slashes = plural(int(new(big.Int).Quo(free, st.Slash).Int64()), "slash")
	}
	line.Detail = fmt.Sprintf("rig %d on job %d: stake %s ETH, %s locked, %s free (%s)", st.RigID, jobID,
		numeric.FormatETH(st.Stake), numeric.FormatETH(st.Locked), numeric.FormatETH(free), slashes)
	switch {
	case !st.Active:
		line.Verdict, line.Problem = Fail, RigInactive
		line.Fix = fmt.Sprintf("register a new rig: pricerig operator register --job %d --stake ETH", jobID)
	case free.Cmp(st.Slash) < 0:
		line.Verdict, line.Problem = Fail, StakeLow
		line.Detail += ": it is not drawn while its free stake is below the slash " + numeric.FormatETH(st.Slash) + " ETH"
		line.Fix = fmt.Sprintf("pricerig operator stake add --rig %d --amount ETH (at least %s)", st.RigID, numeric.FormatETH(new(big.Int).Sub(st.Slash, free)))
	default:
		line.Verdict = OK
		line.Detail = "active, " + line.Detail
	}
	return line
}

// gasLine is a paying key's balance in days of its rigs' tasks at today's gas price.
func (c *Chain) gasLine(p *payer, bal, price, share *big.Int, from uint64) Check {
	line := Check{Check: "gas", Subject: p.addr.Hex()}
	tasks := c.TasksPerDay * p.rigs
	holds := fmt.Sprintf("%s holds %s ETH", p.addr.Hex(), numeric.FormatETH(bal))
	topUp := func(days int64) string {
		want := new(big.Int).Mul(agentrig.NewGasDay(p.gasPerTask, tasks, price).Wei, big.NewInt(days))
		return fmt.Sprintf("send %s at least %s ETH: %d days of gas", p.addr.Hex(), numeric.FormatETH(new(big.Int).Sub(want, bal)), days)
	}
	switch {
	case bal.Sign() == 0:
		line.Verdict, line.Problem = Fail, GasLow
		line.Detail = holds + ": it cannot pay for a commit or a reveal"
		line.Fix = fmt.Sprintf("send ETH to %s", p.addr.Hex())
		return line
	case p.gasPerTask == 0:
		line.Verdict, line.Problem = Warn, GasUnmeasured
		line.Detail = fmt.Sprintf("%s; its rigs sent no commit or reveal since block %d, so a task's gas is not measured (at %s gwei, a task's %s ETH pays for up to %s gas)",
			holds, from, gwei(price), numeric.FormatETH(share), new(big.Int).Quo(share, maxOne(price)))
		line.Fix = "answer a first task (pricerig operator status shows its gas); the doctor then reckons the days"
		return line
	}
	day := agentrig.NewGasDay(p.gasPerTask, tasks, price)
	days := day.Covers(bal)
	line.Detail = fmt.Sprintf("%s: %s days of %d tasks a day at %d gas and %s gwei (%s ETH a day)", holds, days, tasks, p.gasPerTask, gwei(price), numeric.FormatETH(day.Wei))
	switch {
	case days.Cmp(big.NewInt(1)) < 0:
		line.Verdict, line.Problem, line.Fix = Fail, GasLow, topUp(7)
	case days.Cmp(big.NewInt(7)) < 0:
		line.Verdict, line.Problem, line.Fix = Warn, GasLow, topUp(7)
	default:
		line.Verdict = OK
	}
	return line
}

// breakEven is the gas price past which a task costs a paying key more than an agreed task
// earns its rig, against today's.
func breakEven(p *payer, price, share *big.Int) Check {
	line := Check{Check: "break_even", Subject: p.addr.Hex()}
	be := agentrig.BreakEvenGasPrice(share, p.gasPerTask)
	cost := new(big.Int).Mul(new(big.Int).SetUint64(p.gasPerTask), price)
	shared := fmt.Sprintf("%d of them its share of the task's draw and settle", p.shared)
	if p.shared == 0 {
		shared = "its share of the draw and settle not measured: none of its tasks settled since the block looked from"
	}
	line.Detail = fmt.Sprintf("an agreed task earns %s ETH and costs %s ETH of gas (%d gas at %s gwei, %s): break-even at %s gwei",
		numeric.FormatETH(share), numeric.FormatETH(cost), p.gasPerTask, gwei(price), shared, gwei(be))
	if price.Cmp(be) > 0 {
		line.Verdict, line.Problem = Warn, Unprofitable
		line.Detail += ": each task loses money at today's price"
		line.Fix = fmt.Sprintf("answer where gas is under %s gwei; a relayer (--relayer-key-env) batches answers for less gas each", gwei(be))
		return line
	}
	line.Verdict = OK
	return line
}

// capLine says whether today's gas price is above the rig's --max-gas-price, where the rig's
// transactions wait (txm.ErrGasPriceCapped) and its drawn tasks are missed.
func capLine(price, limit *big.Int) Check {
	line := Check{Check: "gas_cap", Verdict: OK, Detail: fmt.Sprintf("today's gas price %s gwei is under the --max-gas-price %s gwei", gwei(price), gwei(limit))}
	if price.Cmp(limit) > 0 {
		line.Verdict, line.Problem = Warn, HeldBack
		line.Detail = fmt.Sprintf("today's gas price %s gwei is above the --max-gas-price %s gwei: the rig's answers are held back (nothing is sent, and a task it is drawn in is missed and slashed) until the fee falls", gwei(price), gwei(limit))
		line.Fix = "wait for the fee to fall, or raise --max-gas-price (doctor's break_even says where a task stops paying)"
	}
	return line
}

func gwei(wei *big.Int) string { return decimal.NewFromBigInt(wei, -9).String() }

func maxOne(v *big.Int) *big.Int {
	if v.Sign() > 0 {
		return v
	}
	return big.NewInt(1)
}
