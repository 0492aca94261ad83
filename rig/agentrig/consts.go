package agentrig

import (
	"fmt"
	"time"

	"github.com/pricerig/pricerig/numeric"
)

// Limits and constants of the reference contract (its internal constants, mirrored here; the
// tests pin every one of them against the contract's behaviour).
const (
	MinQuorum       = 2
	MaxQuorum       = 5
	MaxToleranceBps = 2000
	// MaxScan is how many rigs of a job's list the draw looks at, at most.
	MaxScan = 64
	// BlockhashReach is how far back blockhash reaches; an older order block is re-anchored.
	BlockhashReach = 256
	// RefundAfter is how long after its order an undrawn task can be refunded.
	RefundAfter = time.Hour
	// DefaultWindow is the seed's commit window and reveal window, used for a 0 constructor argument.
	DefaultWindow = 4 * time.Minute
	// BuilderBps is the share of an agreed task's price credited to the job's builder.
	BuilderBps = 1000
)

// Price and slash limits in wei (the seed's, numeric's).
var (
	MinPrice = numeric.MinPriceWei // 0.000001 ETH
	MaxPrice = numeric.MaxPriceWei // 1 ETH
	MaxSlash = numeric.MaxSlashWei // 0.01 ETH
)

// Phase is what phaseOf returns (and answerOf's status).
type Phase uint8

const (
	PhaseNone     Phase = 0 // no such task
	PhaseDraw     Phase = 1 // ordered, waiting for draw (or refund after an hour)
	PhaseCommit   Phase = 2 // drawn rigs commit
	PhaseReveal   Phase = 3 // drawn rigs reveal
	PhaseSettle   Phase = 4 // anyone may settle
	PhaseSettled  Phase = 5
	PhaseRefunded Phase = 6
)

func (p Phase) String() string {
	switch p {
	case PhaseNone:
		return "none"
	case PhaseDraw:
		return "draw"
	case PhaseCommit:
		return "commit"
	case PhaseReveal:
		return "reveal"
	case PhaseSettle:
		return "settle"
	case PhaseSettled:
		return "settled"
	case PhaseRefunded:
		return "refunded"
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// SkipReason is why commitMany/revealMany skipped an entry (the Skipped event).
type SkipReason uint8

const (
	SkipBadSignature SkipReason = 1 // malformed, malleable or unrecoverable signature
	SkipWrongPhase   SkipReason = 2 // the task is not in the commit (or reveal) phase, or does not exist
	SkipNotDrawn     SkipReason = 3 // the signer operates none of the task's drawn rigs
	SkipAlreadyDone  SkipReason = 4 // that rig already committed (or revealed)
	SkipNotCommitted SkipReason = 5 // a reveal from a rig that did not commit
	SkipMismatch     SkipReason = 6 // the reveal does not match the commitment
)

func (r SkipReason) String() string {
	switch r {
	case SkipBadSignature:
		return "bad signature"
	case SkipWrongPhase:
		return "wrong phase"
	case SkipNotDrawn:
		return "signer not drawn"
	case SkipAlreadyDone:
		return "already done"
	case SkipNotCommitted:
		return "not committed"
	case SkipMismatch:
		return "reveal does not match commitment"
	}
	return fmt.Sprintf("skip(%d)", uint8(r))
}

// SlashReason is why a drawn rig lost its slash (the Slashed event).
type SlashReason uint8

const (
	SlashMissedCommit     SlashReason = 1
	SlashMissedReveal     SlashReason = 2
	SlashOutsideAgreement SlashReason = 3
)

// CreditReason is why an account was credited (the Credited event).
type CreditReason uint8

const (
	CreditRigReward   CreditReason = 1 // an agreeing rig's share of the price, to its operator
	CreditOperatorFee CreditReason = 2 // the relayer's cut of that share, per the operator's consent
	CreditBuilder     CreditReason = 3 // the builder's share of an agreed task (and division dust)
	CreditStaker      CreditReason = 4 // an agreeing rig's owner's share of the slashes
	CreditOrderer     CreditReason = 5 // price back: refund, or a task that did not agree
	CreditTreasury    CreditReason = 6 // slashes of a task that did not agree, and slash dust
	CreditStake       CreditReason = 7 // stake the owner withdrew from a rig
)
