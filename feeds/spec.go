package feeds

// The spec's types. Load builds them: spec_load.go reads the top level, job, reconcile, networks,
// feeds and splits; spec_sources.go the sources (checked by each type's Factory); spec_yaml.go
// holds the YAML readers that keep every value's line.

import (
	"math/big"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Spec is a loaded and validated sources.yaml: the job-2 spec as the rig reads it.
type Spec struct {
	File    string // the name problems are reported under
	Version int
	SpecURI string
	Job     Job
	Rules   Rules
	Sources []SourceSpec // in file order, skipped ones included (see SourceSpec.Missing)
	Feeds   []Feed       // in file order
	Splits  Splits
	// RefusalAnswer is refusal_answer: the answer (price × 10^scale) every rig on the spec
	// commits for a task the spec refuses — one whose input or minute no rig can price, whatever
	// its sources (see rig.InputRules). nil when the spec has no such rule: such tasks are skipped.
	RefusalAnswer *numeric.Scaled
	// Networks are the chains the spec names, by network name (robinhood, robinhood-testnet,
	// devnet): where the AgentRig contract is deployed on each.
	Networks map[string]Network
	// Warnings are problems that do not stop the spec from loading, such as a source whose key
	// variable is unset (that source is skipped).
	Warnings []Problem
}

// Network is a chain's entry under networks: in the spec.
type Network struct {
	Contract string // the AgentRig address, 0x and 40 hex digits
	// Blocks is how the chain numbers the blocks AgentRig counts in (block.number): "ethereum"
	// (its own) or "nitro" (the L1 block number, as on Robinhood Chain); "" keeps the network's
	// own (rig/agentrig's Networks).
	Blocks string
	// RPCs are the chain's RPC endpoints (rpcs: a list of URLs), used together when no --rpc is
	// given: reads from the healthiest, transactions sent to all (rig/rpcpool).
	RPCs []string
	Line int
}

// Job is the on-chain job the spec answers: a NUMERIC job (an answer is a price, within the
// tolerance of the median) as it was published. The rig reads the chain's; `pricerig doctor`
// holds the chain's to this.
type Job struct {
	ID           uint32
	Scale        int // decimal places of an answer; job 2 uses numeric.Scale
	ToleranceBps uint32
	Quorum       int
	// Price is what an orderer pays per task, Slash what a drawn rig loses for an answer outside
	// the agreement or a missed window, in wei (price: and slash: in ETH).
	Price, Slash *big.Int
}

// SourceSpec is one entry of the sources: block, resolved: secrets read from the environment (or
// the load overrides), base URL overridden where asked.
type SourceSpec struct {
	sources.Settings
	KeyEnv, SecretEnv string
	Line              int
	// Missing says why the source is skipped ("ALPACA_API_KEY_ID is not set"); "" when usable.
	Missing string
	// Coverage is what the source's type reported when the loader built it to check its options.
	Coverage sources.Coverage
	// NeedsKey and NeedsSecret repeat the type's Factory, for reports.
	NeedsKey, NeedsSecret bool
}

// Usable reports whether the source can be asked: its keys are there.
func (s SourceSpec) Usable() bool { return s.Missing == "" }

// Feed maps one symbol to each source's own name for it.
type Feed struct {
	Symbol  string
	Line    int
	Sources []FeedSource // in file order
}

// FeedSource is one source of a feed and the provider's symbol there (Equity.US.NVDA/USD for
// Pyth, NVDA for most).
type FeedSource struct {
	Source string
	Symbol string
}

// ProviderSymbol returns the provider symbol a source uses for the feed.
func (f Feed) ProviderSymbol(source string) (string, bool) {
	for _, fs := range f.Sources {
		if fs.Source == source {
			return fs.Symbol, true
		}
	}
	return "", false
}

// Feed returns the feed of a symbol (exact match: job inputs name symbols exactly).
func (s *Spec) Feed(symbol string) (Feed, bool) {
	for _, f := range s.Feeds {
		if f.Symbol == symbol {
			return f, true
		}
	}
	return Feed{}, false
}

// Symbols lists the feeds' symbols in file order.
func (s *Spec) Symbols() []string {
	out := make([]string, len(s.Feeds))
	for i, f := range s.Feeds {
		out[i] = f.Symbol
	}
	return out
}

// Source returns a source by name.
func (s *Spec) Source(name string) (SourceSpec, bool) {
	for _, src := range s.Sources {
		if src.Name == name {
			return src, true
		}
	}
	return SourceSpec{}, false
}

// LoadOptions are what the host decides about loading: where secrets come from and where the
// sources point.
type LoadOptions struct {
	// File names the file in problems; default "sources.yaml".
	File string
	// Getenv reads the variables named by key_env and secret_env; nil means os.Getenv.
	Getenv func(string) string
	// BaseURLs overrides base_url by source name or by type (a name wins over a type).
	BaseURLs map[string]string
	// Sim points every source at a provider simulator (see SimTarget).
	Sim *SimTarget
}

// SimTarget points every source at a simulator: base_url becomes Root + "/" + the source's type,
// and every key and secret the source has or needs becomes Key and Secret. That is how
// `pricerig --sim URL`, devnet and tests reach sources/sim.
type SimTarget struct {
	Root        string
	Key, Secret string
	// Instant says the simulator serves every bar final the moment its minute ends
	// (sim.Options.Instant): every source's final_after is then 0, so a test pricing the last
	// closed minute does not wait for finality the simulator does not emulate.
	Instant bool
}

// DefaultFile is the name problems are reported under when LoadOptions.File is empty.
const DefaultFile = "sources.yaml"

// DefaultJob is job 2 as the seed's launch table publishes it: NUMERIC, 0.50 %, quorum 3,
// 0.00001 ETH a task and 0.00001 ETH of slash, answers scaled by 10^8.
func DefaultJob() Job {
	launch := big.NewInt(10_000_000_000_000) // 0.00001 ETH
	return Job{ID: 2, Scale: numeric.Scale, ToleranceBps: 50, Quorum: 3, Price: launch, Slash: new(big.Int).Set(launch)}
}
