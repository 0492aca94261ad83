package doctor

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// Problems of the chain's checks.
const (
	ChainUnreachable = "chain_unreachable" // the node did not answer
	WrongChain       = "wrong_chain"       // the node serves another chain than the network's
	NoContract       = "no_contract"       // no code at the AgentRig address
	NoJob            = "no_job"            // the contract has no such job
	JobMismatch      = "job_mismatch"      // the job's kind, quorum or tolerance is not the spec's
	SpecDrift        = "spec_drift"        // the job names another spec_uri: the rig refuses it
	JobTerms         = "job_terms"         // the job's price or slash is not the spec's
	NoKeys           = "no_keys"           // no operator keys were given: the rigs are not checked
	KeysUnreadable   = "keys_unreadable"   // the keys given could not be loaded
	NoRig            = "no_rig"            // the operator runs no rig on the job
	RigInactive      = "rig_inactive"      // the rig was deactivated: never drawn
	StakeLow         = "stake_low"         // the unlocked stake does not cover one more slash
	GasLow           = "gas_low"           // the gas key's balance covers less than a week
	GasUnmeasured    = "gas_unmeasured"    // no commit or reveal yet: the gas of a task is unknown
	Unprofitable     = "unprofitable"      // a task costs more gas than it earns at today's price
	HeldBack         = "held_back"         // today's gas price is above the rig's --max-gas-price
)

// Node is what the chain's checks read of a node; *ethclient.Client has it.
type Node interface {
	agentrig.Backend
	// CodeAt is an account's code at a block (nil: the latest): none at an address that holds no
	// contract.
	CodeAt(ctx context.Context, account common.Address, blockNumber *big.Int) ([]byte, error)
}

// Chain is the chain to check: the node (or why it could not be dialled), the network it must
// serve, the contract and the keys of the rigs, as `pricerig rig` takes them.
type Chain struct {
	Node    Node
	DialErr error
	RPC     string // the node's URL as it may be shown (several, comma-separated)
	// Endpoints are the RPC endpoints one by one when there are several (Node is then all of
	// them as one, rig/rpcpool): each one's chain id, head and lag is a check of its own.
	Endpoints []Endpoint
	Network   agentrig.Network
	Contract  common.Address
	// Operators are the rigs' operator keys' addresses; Relayer the relayer's, which pays the
	// gas in relayed mode. KeysErr is why the keys given could not be loaded.
	Operators []common.Address
	Relayer   *common.Address
	KeysErr   error
	// TasksPerDay is how many tasks a day each rig is expected to answer (default 1440).
	TasksPerDay int
	// FromBlock is where the rigs' commits and reveals are looked for (their gas); default
	// LogsBack blocks before the head.
	FromBlock uint64
	// MaxGasPrice is the rig's --max-gas-price (wei; nil: none): above it the rig sends nothing
	// and its answers are held back.
	MaxGasPrice *big.Int
}

// LogsBack is how far back a rig's latest commit and reveal are looked for by default: a
// million blocks, about three days of Arbitrum's 250 ms blocks, inside what public nodes serve.
const LogsBack = 1_000_000

// chainResult is what the chain's checks found, and the head the clock is held to.
type chainResult struct {
	checks []Check
	head   *types.Header
}

// check runs the chain's checks in order; one that leaves nothing to check further (no node,
// another chain, no contract, no job) ends them.
func (c *Chain) check(ctx context.Context, spec *feeds.Spec) chainResult {
	var r chainResult
	add := func(ch Check) { r.checks = append(r.checks, ch) }
	id := Check{Check: "chain_id", Subject: c.Network.Name}
	if c.DialErr != nil {
		add(unreachable(id, c.RPC, c.DialErr))
		return r
	}
	got, err := agentrig.CheckChain(ctx, c.Node, c.Network.ChainID)
	switch {
	case errors.Is(err, agentrig.ErrWrongChain):
		id.Verdict, id.Problem = Fail, WrongChain
		id.Detail = fmt.Sprintf("%s: %s; every signature and transaction would be for the wrong chain", c.RPC, redact.String(err.Error()))
		id.Fix = fmt.Sprintf("give the RPC of %s (--rpc), or the --network that node serves", c.Network.Name)
		add(id)
		return r
	case err != nil:
		add(unreachable(id, c.RPC, err))
		return r
	}
	id.Verdict, id.Detail = OK, fmt.Sprintf("%s serves chain id %s, %s's", c.RPC, got, c.Network.Name)
	add(id)
	r.checks = append(r.checks, c.checkEndpoints(ctx)...)
	if head, err := c.Node.HeaderByNumber(ctx, nil); err == nil {
		r.head = head
	}

	code, err := c.Node.CodeAt(ctx, c.Contract, nil)
	contract := Check{Check: "contract", Subject: c.Contract.Hex()}
	switch {
	case err != nil:
		add(unreachable(contract, c.RPC, err))
		return r
	case len(code) == 0:
		contract.Verdict, contract.Problem = Fail, NoContract
		contract.Detail = fmt.Sprintf("no contract code at %s on %s (chain id %s)", c.Contract.Hex(), c.Network.Name, got)
		contract.Fix = fmt.Sprintf("give AgentRig's address on %s: --contract, or networks.%s.contract in sources.yaml", c.Network.Name, c.Network.Name)
		add(contract)
		return r
	}
	contract.Verdict, contract.Detail = OK, fmt.Sprintf("%d bytes of code at %s", len(code), c.Contract.Hex())
	add(contract)

	ag := agentrig.NewContract(c.Node, c.Contract)
	job, line := checkJob(ctx, ag, spec)
	add(line)
	if line.Problem == NoJob || line.Problem == Unreachable {
		return r
	}
	r.checks = append(r.checks, c.checkRigs(ctx, ag, spec.Job.ID, job, r.head)...)
	return r
}

func unreachable(line Check, rpc string, err error) Check {
	line.Verdict, line.Problem = Fail, ChainUnreachable
	line.Detail = fmt.Sprintf("%s: %s", rpc, redact.String(err.Error()))
	line.Fix = "check --rpc (or the network's public RPC) and that this machine reaches it"
	return line
}

// checkJob holds the contract's job to the spec's: a NUMERIC job of the spec's quorum and
// tolerance (another makes the rig's answers disagree with the job's agreement), published with
// the spec's spec_uri (the rig refuses another unless --allow-spec-drift), at the spec's price and
// slash (other terms change what a task earns and what a stake covers).
func checkJob(ctx context.Context, ag *agentrig.Contract, spec *feeds.Spec) (agentrig.AgentRigJobInfo, Check) {
	want := spec.Job
	line := Check{Check: "job", Subject: fmt.Sprint(want.ID)}
	job, err := ag.Job(ctx, want.ID)
	if err != nil {
		line.Verdict, line.Problem = Fail, Unreachable
		line.Detail, line.Fix = redact.String(err.Error()), "check the node and the contract address"
		return job, line
	}
	if job.Quorum == 0 {
		line.Verdict, line.Problem = Fail, NoJob
		line.Detail = fmt.Sprintf("the contract has no job %d", want.ID)
		line.Fix = "set job: id in sources.yaml to the job \"Verify a price\" was published as"
		return job, line
	}
	var fails, warns []string
	if numeric.Kind(job.Kind) != numeric.Numeric {
		fails = append(fails, fmt.Sprintf("kind %s, not numeric", numeric.Kind(job.Kind)))
	}
	if int(job.Quorum) != want.Quorum {
		fails = append(fails, fmt.Sprintf("quorum %d on chain, %d in the spec", job.Quorum, want.Quorum))
	}
	if job.ToleranceBps != want.ToleranceBps {
		fails = append(fails, fmt.Sprintf("tolerance %d bps on chain, %d in the spec", job.ToleranceBps, want.ToleranceBps))
	}
	drift := spec.SpecURI != "" && job.SpecURI != spec.SpecURI
	if drift {
		fails = append(fails, fmt.Sprintf("spec %q on chain, %q in sources.yaml (the rig refuses it without --allow-spec-drift)", job.SpecURI, spec.SpecURI))
	}
	if want.Price != nil && job.Price.Cmp(want.Price) != 0 {
		warns = append(warns, fmt.Sprintf("price %s ETH on chain, %s in the spec", numeric.FormatETH(job.Price), numeric.FormatETH(want.Price)))
	}
	if want.Slash != nil && job.Slash.Cmp(want.Slash) != 0 {
		warns = append(warns, fmt.Sprintf("slash %s ETH on chain, %s in the spec", numeric.FormatETH(job.Slash), numeric.FormatETH(want.Slash)))
	}
	terms := fmt.Sprintf("job %d: %s, quorum %d, tolerance %d bps, %s ETH a task, slash %s ETH, %s active rigs",
		want.ID, numeric.Kind(job.Kind), job.Quorum, job.ToleranceBps, numeric.FormatETH(job.Price), numeric.FormatETH(job.Slash), job.ActiveRigs)
	switch {
	case len(fails) > 0:
		line.Verdict, line.Problem = Fail, JobMismatch
		if drift && len(fails) == 1 {
			line.Problem = SpecDrift
		}
		line.Detail = strings.Join(append(fails, warns...), "; ")
		line.Fix = "point at the job the spec describes (job: id, --contract), or bring sources.yaml's job: and spec_uri to the published job's"
	case len(warns) > 0:
		line.Verdict, line.Problem = Warn, JobTerms
		line.Detail = strings.Join(warns, "; ")
		line.Fix = "set job: price and slash in sources.yaml to the published job's, so the stake and break-even are reckoned on them"
	default:
		line.Verdict, line.Detail = OK, terms
	}
	return job, line
}
