package rig

// Batching: the answers of one kind a step has ready — every rig of this process, every task —
// go out as one commitMany/revealMany signed by the operators, or as one transaction each,
// whichever eth_estimateGas says costs less gas. Before either, each answer is simulated
// against the pending state, and one that no longer applies (a predecessor of this process got
// it mined, the window closed) is dropped, so a batch is never sent whole around it. The
// simulations are the estimates themselves (eth_estimateGas at the pending state reverts exactly
// when eth_call there would), all made in one JSON-RPC batch, and the cheaper way is sent on
// them without being simulated again.

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/txm"
)

// maxBatch bounds the entries of one commitMany/revealMany, so a backlog of tasks never builds
// a transaction near the block gas limit (an entry costs 140k–170k gas on the reference
// contract: 64 stay near a third of a 30M-gas block).
const maxBatch = 64

// answerPlan is how a set of answers of one kind goes out, and the estimates that decided it.
type answerPlan struct {
	kind *answerKind
	kept []answerTx // the answers that still apply on the pending state
	// singles[i] sends kept[i] alone from senders[i]: the rig's own commit/reveal from its
	// operator, or, behind a relayer, a one-entry commitMany/revealMany from the relayer.
	singles  []txm.Call
	senders  []*txm.Sender
	gas      []uint64 // eth_estimateGas of each single at the pending state
	separate uint64   // Σ gas
	// many carries every kept answer, signed by its operator, sent by payer: the relayer, or the
	// operator of the lowest rig id in the batch.
	many    txm.Call
	payer   *txm.Sender
	batched uint64 // eth_estimateGas of many at the pending state; 0 when it could not be estimated
}

// batch reports whether one transaction for all costs less gas than one each.
func (p answerPlan) batch() bool { return p.batched > 0 && p.batched < p.separate }

// probe is what plan learns of one answer.
type probe struct {
	sig    []byte
	single txm.Call
	sender *txm.Sender
	gas    uint64
	err    error
}

// plan simulates each answer against the pending state, drops those that would not apply,
// signs the rest and estimates both ways of sending them. txs are of one kind.
//
// Each answer's check is the rig's own call, simulated from its operator against the pending
// state: it reverts exactly when the answer's batch entry would be skipped. Sent directly, that
// check's gas estimate is the single's; behind a relayer the single is a one-entry batch from the
// relayer, estimated beside it. The batch of all of them is estimated in the same round trip
// (txm.Sender.Check's eth_estimateGas at the pending state, in one JSON-RPC batch:
// txm.CheckMany), and again alone only when some answer was dropped.
func (r *Runner) plan(ctx context.Context, txs []answerTx) answerPlan {
	kind := txs[0].kind
	probes := make([]probe, len(txs))
	var reqs []txm.CheckRequest
	own := make([]int, len(txs)) // index in reqs of each answer's own call; -1 when not checked
	var entries []journal.Entry
	var sigs [][]byte
	for i, a := range txs {
		h := r.rigs[a.entry.RigID]
		pr := &probes[i]
		own[i] = -1
		digest, err := a.kind.digest(r.domain, a.entry)
		if err == nil {
			pr.sig, err = h.signer.SignDigest(digest)
		}
		if err != nil {
			pr.err = err
			continue
		}
		pr.single, pr.sender = a.kind.call(r.chain, a.entry), h.sender
		own[i] = len(reqs)
		reqs = append(reqs, txm.CheckRequest{From: h.sender, Call: pr.single})
		if r.relayer != nil {
			pr.single, pr.sender = a.kind.many(r.chain, []journal.Entry{a.entry}, [][]byte{pr.sig}), r.relayer
			reqs = append(reqs, txm.CheckRequest{From: r.relayer, Call: pr.single})
		}
		entries, sigs = append(entries, a.entry), append(sigs, pr.sig)
	}
	if len(reqs) == 0 {
		for i, a := range txs {
			r.logSendError(kind.name, a.entry.TaskID, a.entry.RigID, probes[i].err)
		}
		return answerPlan{kind: kind}
	}
	// Optimistically, every answer applies: the batch of all is estimated in the same round trip.
	payer := r.payerOf(txs)
	many := kind.many(r.chain, entries, sigs)
	reqs = append(reqs, txm.CheckRequest{From: payer, Call: many})
	res := txm.CheckMany(ctx, reqs)
	p := answerPlan{kind: kind}
	for i, a := range txs {
		pr := probes[i]
		if pr.err == nil {
			k := own[i]
			pr.gas, pr.err = res[k].Gas, res[k].Err
			if pr.err == nil && r.relayer != nil {
				pr.gas, pr.err = res[k+1].Gas, res[k+1].Err
			}
		}
		if pr.err != nil {
			r.logSendError(kind.name, a.entry.TaskID, a.entry.RigID, pr.err)
			continue
		}
		p.kept = append(p.kept, a)
		p.singles, p.senders, p.gas = append(p.singles, pr.single), append(p.senders, pr.sender), append(p.gas, pr.gas)
		p.separate += pr.gas
	}
	if len(p.kept) == 0 {
		return p
	}
	p.payer, p.many = payer, many
	last := res[len(res)-1]
	if len(p.kept) < len(txs) {
		// Some answer no longer applies: the batch of the rest is another transaction.
		entries, sigs = entries[:0], sigs[:0]
		for i, a := range txs {
			if probes[i].err == nil && res[own[i]].Err == nil && (r.relayer == nil || res[own[i]+1].Err == nil) {
				entries, sigs = append(entries, a.entry), append(sigs, probes[i].sig)
			}
		}
		p.payer, p.many = r.payerOf(p.kept), kind.many(r.chain, entries, sigs)
		last.Gas, last.Err = p.payer.Check(ctx, p.many.To, p.many.Data, p.many.Value)
	}
	if last.Err != nil {
		r.log.Warn("estimating a "+kind.name+" batch failed; sending one transaction each", "entries", len(p.kept), "error", last.Err)
		return p
	}
	p.batched = last.Gas
	return p
}

// payerOf is who pays a batch of txs: the relayer, or the operator of the lowest rig id in it.
func (r *Runner) payerOf(txs []answerTx) *txm.Sender {
	if r.relayer != nil {
		return r.relayer
	}
	return r.rigs[lowestRig(txs)].sender
}

func lowestRig(txs []answerTx) uint64 {
	low := txs[0].entry.RigID
	for _, a := range txs[1:] {
		low = min(low, a.entry.RigID)
	}
	return low
}

// sendPlanned plans txs and sends them the cheaper way, waiting for every receipt.
func (r *Runner) sendPlanned(ctx context.Context, txs []answerTx) {
	p := r.plan(ctx, txs)
	if len(p.kept) == 0 {
		return
	}
	kind := p.kind
	log := r.log.With("entries", len(p.kept), "gas_batched", p.batched, "gas_separate", p.separate)
	if p.batch() {
		rec, err := r.sendBatch(ctx, p)
		if errors.Is(err, txm.ErrInsufficientFunds) {
			// No operator of the batch can pay for it: each rig sends its own, so the rigs
			// whose operators hold gas still answer.
			log.Warn("no operator of the "+kind.name+" batch can pay for it; sending one transaction each", "error", err)
			r.sendSingles(ctx, p)
			return
		}
		if err != nil {
			r.logSendError(kind.name+" batch", 0, 0, err)
			return
		}
		skipped := r.deploy.Skipped(rec)
		for i, a := range p.kept {
			if !skipped[i] {
				kind.done(r, ctx, a, rec)
			}
		}
		log.Info(kind.name+"s sent in one transaction", "skipped", len(skipped), "tx", rec.TxHash.Hex(), "gas_used", rec.GasUsed)
		return
	}
	log.Debug(kind.name + "s sent one transaction each")
	r.sendSingles(ctx, p)
}

// sendBatch sends p's batch from its payer. Without a relayer, a payer whose key cannot pay
// the gas must not hold back the other operators' answers: the next operator of the batch, by
// rig id, pays instead. The error is ErrInsufficientFunds when none can.
func (r *Runner) sendBatch(ctx context.Context, p answerPlan) (*types.Receipt, error) {
	rec, err := r.sendChecked(ctx, p.payer, p.many, p.batched)
	if r.relayer != nil || !errors.Is(err, txm.ErrInsufficientFunds) {
		return rec, err
	}
	ids := make([]uint64, 0, len(p.kept))
	for _, a := range p.kept {
		if !slices.Contains(ids, a.entry.RigID) {
			ids = append(ids, a.entry.RigID)
		}
	}
	slices.Sort(ids)
	tried := []*txm.Sender{p.payer}
	for _, id := range ids {
		payer := r.rigs[id].sender
		if slices.Contains(tried, payer) {
			continue
		}
		tried = append(tried, payer)
		r.log.Warn("the "+p.kind.name+" batch's payer cannot pay for it; another operator of the batch pays",
			"unfunded", tried[len(tried)-2].Address(), "payer", payer.Address(), "rig", id)
		if rec, err = r.send(ctx, payer, p.many); !errors.Is(err, txm.ErrInsufficientFunds) {
			return rec, err
		}
	}
	return nil, err
}

// sendSingles sends each of p's answers as its own transaction, waiting for every receipt.
func (r *Runner) sendSingles(ctx context.Context, p answerPlan) {
	kind := p.kind
	var wg sync.WaitGroup
	for i, a := range p.kept {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, err := r.sendChecked(ctx, p.senders[i], p.singles[i], p.gas[i])
			if err != nil {
				r.logSendError(kind.name, a.entry.TaskID, a.entry.RigID, err)
				return
			}
			kind.done(r, ctx, a, rec)
		}()
	}
	wg.Wait()
}
