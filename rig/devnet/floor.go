package devnet

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/task"
)

// SoloAnswerGas is the gas of a commit and of a reveal sent alone, each rig's own transaction,
// for a task drawn in block drawn and not yet committed there: the reference contract's share of
// Economics.LoneReference when a run sent every answer in batches and so mined no lone commit or reveal to
// measure. The drawn rigs' operators commit and then reveal in one eth_simulateV1 block on top of
// block drawn (the node executes them as it would mine them; nothing is sent), each with the L1
// part its transaction would be charged (Chain.CallL1Gas), and the means over the rigs are
// returned (a task's first commit and the one completing it cost more than
// the others).
func (d *Devnet) SoloAnswerGas(ctx context.Context, taskID, drawn uint64) (commit, reveal uint64, err error) {
	id := new(big.Int).SetUint64(taskID)
	info, err := d.contract.Task(ctx, id)
	if err != nil {
		return 0, 0, err
	}
	type call struct {
		From common.Address `json:"from"`
		To   common.Address `json:"to"`
		Data hexutil.Bytes  `json:"data"`
	}
	var commits, reveals []call
	answer := numeric.Scaled(100_00000000).Answer()
	for i, rigID := range info.RigIds {
		out, err := d.client.CallContract(ctx, ethereum.CallMsg{To: &d.Contract, Data: d.abi.PackRigOf(rigID)}, nil)
		if err != nil {
			return 0, 0, fmt.Errorf("rigOf(%d): %w", rigID, err)
		}
		r, err := d.abi.UnpackRigOf(out)
		if err != nil {
			return 0, 0, err
		}
		// A salt as random as the rigs' own: a reveal's calldata costs 16 gas a non-zero byte
		// and 4 a zero one, so a salt of zeros made the simulated reveals 384 gas cheaper.
		salt := task.Salt(crypto.Keccak256Hash([]byte{byte(i + 1)}))
		c, err := task.Commitment(id, rigID, answer, salt)
		if err != nil {
			return 0, 0, err
		}
		commits = append(commits, call{From: r.Operator, To: d.Contract, Data: d.abi.PackCommit(id, c)})
		reveals = append(reveals, call{From: r.Operator, To: d.Contract, Data: d.abi.PackReveal(id, answer, salt)})
	}
	var res []struct {
		Calls []struct {
			GasUsed hexutil.Uint64 `json:"gasUsed"`
			Status  hexutil.Uint64 `json:"status"`
		} `json:"calls"`
	}
	opts := map[string]any{"blockStateCalls": []map[string]any{{"calls": append(commits, reveals...)}}}
	if err := d.client.Client().CallContext(ctx, &res, "eth_simulateV1", opts, hexutil.Uint64(drawn)); err != nil {
		return 0, 0, fmt.Errorf("eth_simulateV1: %w", err)
	}
	if len(res) != 1 || len(res[0].Calls) != len(commits)+len(reveals) {
		return 0, 0, fmt.Errorf("eth_simulateV1: %d blocks back, want one of %d calls", len(res), len(commits)+len(reveals))
	}
	price, err := d.client.SuggestGasPrice(ctx) // what the rigs pay: the held price, or base fee and tip
	if err != nil {
		return 0, 0, err
	}
	gas := make([]uint64, len(res[0].Calls))
	for i, c := range res[0].Calls {
		if c.Status != 1 {
			return 0, 0, fmt.Errorf("eth_simulateV1: call %d of task %d failed", i, taskID)
		}
		// the simulation counts the execution; a mined transaction's gasUsed has the L1 part too
		sent := append(commits, reveals...)[i]
		l1, err := d.Chain.CallL1Gas(sent.To, sent.Data, uint64(c.GasUsed), price)
		if err != nil {
			return 0, 0, err
		}
		gas[i] = uint64(c.GasUsed) + l1
	}
	return mean(gas[:len(commits)]), mean(gas[len(commits):]), nil
}

// mean is the average of v, rounded down.
func mean(v []uint64) uint64 {
	var sum uint64
	for _, x := range v {
		sum += x
	}
	return sum / uint64(max(len(v), 1))
}
