package audit

import (
	"time"

	"github.com/pricerig/pricerig/sources"
)

// Severity says how urgent a finding is. Both make the audit unhealthy.
type Severity string

// The severities.
const (
	// Warn: nothing is lost yet, but something is drifting toward a loss.
	Warn Severity = "warn"
	// Alert: a source or task is failing now, or money was lost.
	Alert Severity = "alert"
)

// The names of the checks, as reports and metrics label them.
const (
	CheckSourcesName  = "sources"
	CheckRigName      = "rig"
	CheckBalancesName = "balances"
	CheckHistoryName  = "history"
	// CheckRevisionsName: answers taken from bars their sources later revised (the bar ledger).
	CheckRevisionsName = "revisions"
)

// Finding names: stable, for scripts and alert rules. Never rename one; add new ones.
const (
	// Sources check.
	SourceDrift        = "source_drift"        // a source's distance to the answer is past the drift threshold
	ProbableSplit      = "probable_split"      // a source is off by a near-integer ratio: an unrecorded split or adjustment
	SourceDown         = "source_down"         // timeouts, 5xx, malformed bodies, unknown symbol
	SourceUnauthorized = "source_unauthorized" // the provider refused the key
	SourceRateLimited  = "source_rate_limited" // the provider answered 429
	SourceOverQuota    = "source_over_quota"   // not asked: its quota (sources.yaml's quota:, or its free tier's) was used up
	SourceStale        = "source_stale"        // the price is a carried bar much older than the minute
	SourceNoData       = "source_no_data"      // no bar within max_carry for an in-session minute
	MissingKey         = "missing_key"         // the source's key variable is unset: it is skipped
	NoAnswer           = "no_answer"           // the sources did not reconcile to an answer for a minute

	// Rig check.
	NearMiss      = "near_miss"      // a settled answer's distance to the stored median is past the alert share of the tolerance
	Slashed       = "slashed"        // a settled answer fell outside an agreed task's agreement
	NotAgreed     = "not_agreed"     // a task settled without agreement
	MissedWindow  = "missed_window"  // a commit or reveal did not make it in its window
	TaskSkipped   = "task_skipped"   // the rig could not answer a task honestly and did not commit
	CommitPending = "commit_pending" // a commit is not mined and its window closes soon (or has closed)
	RevealPending = "reveal_pending" // a reveal is not mined and its window closes soon (or has closed)
	Unprofitable  = "unprofitable"   // a rig's finished tasks of the window cost more (gas, slashes) than they earned
	WastedGas     = "wasted_gas"     // a transaction of the rig was mined reverted: its gas paid for nothing

	// Balances check.
	LowBalance = "low_balance" // an operator or relayer address holds less than --min-balance

	// History check.
	HistoryGap    = "history_gap"    // session minutes of the window with no stored answer
	HistoryFailed = "history_failed" // stored minutes of the window whose quote from a source is a failed request

	// Revisions check.
	Revised = "revised" // an answer was taken from a bar its source later revised
)

// Finding is one thing the operator should look at.
type Finding struct {
	Check    string   `json:"check"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Source   string   `json:"source,omitempty"`
	Symbol   string   `json:"symbol,omitempty"`
	TaskID   uint64   `json:"task_id,omitempty"`
	RigID    uint64   `json:"rig_id,omitempty"`
	Address  string   `json:"address,omitempty"`
	// ErrorKind is the kind of failure a history_failed finding is about (sources.ErrorKind).
	ErrorKind sources.ErrorKind `json:"error_kind,omitempty"`
	// Count of the observations (minutes, quotes) the finding was seen in, out of Of.
	Count int `json:"count,omitempty"`
	Of    int `json:"of,omitempty"`
	// First and Last bound the minutes it was seen at.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// Value is the measure that crossed Limit, as text: "40.12" (bps), "1/2" (a ratio),
	// "0.0005" (ETH).
	Value   string `json:"value,omitempty"`
	Limit   string `json:"limit,omitempty"`
	Message string `json:"message"`

	// A revised finding's bar: its minute, when the source's new close was seen, the old and
	// the new close, the answer taken from the old one and the answer re-derived now from the
	// new (decimal text; Rederived is empty when the ledger gives no answer now). OldClose is
	// empty for a bar that appeared at a minute the answer carried an earlier bar over, NewClose
	// for a bar the source no longer has.
	BarTime   time.Time `json:"bar_time,omitzero"`
	Seen      time.Time `json:"seen,omitzero"`
	OldClose  string    `json:"old_close,omitempty"`
	NewClose  string    `json:"new_close,omitempty"`
	Answer    string    `json:"answer,omitempty"`
	Rederived string    `json:"rederived,omitempty"`
}
