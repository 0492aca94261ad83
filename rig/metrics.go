package rig

import (
	"math/big"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/rig/journal"
)

// Metrics are the runner's Prometheus series. A nil *Metrics records nothing.
type Metrics struct {
	Seen, Committed, Revealed, Agreed, Slashed, Skipped prometheus.Counter
	SelfDistance, RealizedDistance                      prometheus.Histogram
	CommitMargin                                        prometheus.Histogram
	SourceErrors                                        *prometheus.CounterVec
	// Refused counts tasks the spec refuses (answered refusal_answer), by the rule they broke:
	// hash, uri, json, symbol, minute, calendar, window (see RefusalKind).
	Refused *prometheus.CounterVec
	// Leader is 1 while this instance holds the lease (always, on a SQLite journal); LeaseAge is
	// how long ago the lease was last renewed, by us or by the leader.
	Leader, LeaseAge prometheus.Gauge
	// The accounts, by rig ("relayer" for a relayer's draws and settles), in wei: gas paid
	// (each transaction's fee, shared over the tasks and rigs it served), earned (credits of
	// settled tasks), slashed, and the transactions mined reverted. The journal keeps the exact
	// integers; a counter is a float64.
	GasPaidWei, EarnedWei, SlashedWei, RevertedTxs *prometheus.CounterVec
	// The corrections of those four for reorgs, by rig: what a reorg took back out of the
	// accounts (a transaction, or a settlement's payouts, that the chain no longer holds where
	// it was counted; mined again, it is counted again above). A counter never goes down, so
	// the accounts the journal holds are each counter less its correction, e.g.
	// gas_paid_wei_total - reorged_gas_paid_wei_total. Each correction series is created, at
	// 0, with its account's, so that the difference exists before any reorg.
	ReorgedGasPaidWei, ReorgedEarnedWei, ReorgedSlashedWei, ReorgedRevertedTxs *prometheus.CounterVec
	// Prepriced counts tasks this instance priced while it followed; WarmAnswers the answers it
	// journaled from such a price after taking over (no fetch at the takeover).
	Prepriced, WarmAnswers prometheus.Counter
	// Unsettled counts the tasks answered before their sources were final enough, by outcome:
	// final_subset (from the final prices, at least min_sources, fewer than the early quorum) or
	// provisional (provisional bars counted: too few final by the commit deadline). The journal
	// keeps each one (UnsettledMark).
	Unsettled *prometheus.CounterVec
}

// NewMetrics registers the runner's series with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: "pricerig", Subsystem: "rig", Name: name, Help: help})
	}
	bpsBuckets := []float64{0.5, 1, 2, 5, 10, 15, 20, 25, 30, 40, 50, 100}
	m := &Metrics{
		Seen:      counter("tasks_seen_total", "Job tasks this process's rigs were drawn for."),
		Committed: counter("tasks_committed_total", "Commits mined."),
		Revealed:  counter("tasks_revealed_total", "Reveals mined."),
		Agreed:    counter("tasks_agreed_total", "Settled tasks where our answer was inside the agreement."),
		Slashed:   counter("tasks_slashed_total", "Settled tasks where our answer was outside the agreement or a window was missed."),
		Skipped:   counter("tasks_skipped_total", "Tasks that could not be answered honestly."),
		SelfDistance: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "pricerig", Subsystem: "rig",
			Name: "self_check_distance_bps", Help: "Distance of our answer to the expected median before committing, in bps.", Buckets: bpsBuckets}),
		RealizedDistance: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "pricerig", Subsystem: "rig",
			Name: "realized_distance_bps", Help: "Distance of our answer to the stored median after settlement, in bps.", Buckets: bpsBuckets}),
		CommitMargin: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "pricerig", Subsystem: "rig",
			Name: "commit_margin_seconds", Help: "Time left in the commit window when our commit was mined.", Buckets: []float64{5, 15, 30, 60, 120, 180, 240}}),
		SourceErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "pricerig", Subsystem: "rig",
			Name: "source_errors_total", Help: "Sources that gave no price for a task, by source and status."}, []string{"source", "status"}),
		Refused: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "pricerig", Subsystem: "rig",
			Name: "tasks_refused_total", Help: "Tasks the spec refuses, answered its refusal_answer, by the rule the task broke."}, []string{"rule"}),
		Leader: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "pricerig", Subsystem: "rig",
			Name: "leader", Help: "1 while this instance holds the lease of its keys and may send; 0 while it follows."}),
		LeaseAge: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "pricerig", Subsystem: "rig",
			Name: "lease_age_seconds", Help: "Seconds since the lease of these keys was last renewed, by this instance or by the leader."}),
	}
	byRig := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "pricerig", Subsystem: "rig", Name: name, Help: help}, []string{"rig"})
	}
	m.GasPaidWei = byRig("gas_paid_wei_total", "Wei paid for the rig's mined transactions (ok and reverted), by rig.")
	m.EarnedWei = byRig("earned_wei_total", "Wei credited to the rig by settled tasks, by rig.")
	m.SlashedWei = byRig("slashed_wei_total", "Wei of stake the rig lost to slashes, by rig.")
	m.RevertedTxs = byRig("reverted_txs_total", "Transactions of the rig mined reverted (gas paid for nothing), by the rig whose key sent them.")
	m.ReorgedGasPaidWei = byRig("reorged_gas_paid_wei_total", "Wei of gas_paid_wei_total taken back out because a reorg dropped or moved the transactions, by rig.")
	m.ReorgedEarnedWei = byRig("reorged_earned_wei_total", "Wei of earned_wei_total taken back out because a reorg dropped or moved the settlements, by rig.")
	m.ReorgedSlashedWei = byRig("reorged_slashed_wei_total", "Wei of slashed_wei_total taken back out because a reorg dropped or moved the settlements, by rig.")
	m.ReorgedRevertedTxs = byRig("reorged_reverted_txs_total", "Transactions of reverted_txs_total taken back out because a reorg dropped or moved them, by rig.")
	m.Prepriced = counter("tasks_prepriced_total", "Tasks this instance priced while it followed, ready for a takeover.")
	m.WarmAnswers = counter("warm_answers_total", "Answers journaled from a price taken while this instance followed: no fetch at the takeover.")
	m.Unsettled = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "pricerig", Subsystem: "rig", Name: "unsettled_answers_total",
		Help: "Tasks answered before their sources were final enough by the commit deadline: from fewer final prices than the early quorum (final_subset), or counting provisional bars (provisional)."}, []string{"outcome"})
	reg.MustRegister(m.Prepriced, m.WarmAnswers, m.Unsettled)
	m.Leader.Set(1) // a runner on a SQLite journal always leads; a shared one sets it at its first look
	reg.MustRegister(m.Seen, m.Committed, m.Revealed, m.Agreed, m.Slashed, m.Skipped, m.SelfDistance, m.RealizedDistance, m.CommitMargin, m.SourceErrors, m.Refused,
		m.Leader, m.LeaseAge, m.GasPaidWei, m.EarnedWei, m.SlashedWei, m.RevertedTxs,
		m.ReorgedGasPaidWei, m.ReorgedEarnedWei, m.ReorgedSlashedWei, m.ReorgedRevertedTxs)
	return m
}

func (m *Metrics) setLeader(leader bool, age time.Duration) {
	if m == nil {
		return
	}
	v := 0.0
	if leader {
		v = 1
	}
	m.Leader.Set(v)
	m.LeaseAge.Set(age.Seconds())
}

func (m *Metrics) inc(c func(*Metrics) prometheus.Counter) {
	if m != nil {
		c(m).Inc()
	}
}

func (m *Metrics) observe(h func(*Metrics) prometheus.Histogram, v float64) {
	if m != nil {
		h(m).Observe(v)
	}
}

// CountTx adds a journaled transaction's fee shares (and, reverted, the transaction) to its rigs'
// accounts, or, reorged, to their corrections: a reorg took it back out of the journal.
func (m *Metrics) CountTx(t journal.TxRecord, reorged bool) {
	if m == nil {
		return
	}
	paid, reverted := m.GasPaidWei, m.RevertedTxs
	if reorged {
		paid, reverted = m.ReorgedGasPaidWei, m.ReorgedRevertedTxs
	}
	for _, e := range t.Entries {
		m.open(e.RigID)
		paid.WithLabelValues(journal.RigLabel(e.RigID)).Add(weiFloat(e.Share))
	}
	if t.Status == journal.TxReverted {
		m.open(t.RigID)
		reverted.WithLabelValues(journal.RigLabel(t.RigID)).Inc()
	}
}

// CountPayouts adds a settlement's payouts to their rigs' earned and slashed accounts, or,
// reorged, to their corrections.
func (m *Metrics) CountPayouts(ps []journal.Payout, reorged bool) {
	if m == nil {
		return
	}
	earned, slashed := m.EarnedWei, m.SlashedWei
	if reorged {
		earned, slashed = m.ReorgedEarnedWei, m.ReorgedSlashedWei
	}
	for _, p := range ps {
		m.open(p.RigID)
		if p.Kind == journal.PayoutSlash {
			slashed.WithLabelValues(journal.RigLabel(p.RigID)).Add(weiFloat(p.Wei))
		} else {
			earned.WithLabelValues(journal.RigLabel(p.RigID)).Add(weiFloat(p.Wei))
		}
	}
}

// open creates a rig's account series and their corrections, at 0 until counted: in PromQL a
// difference with a series that does not exist is no value at all, not the counter.
func (m *Metrics) open(rigID uint64) {
	label := journal.RigLabel(rigID)
	for _, v := range []*prometheus.CounterVec{m.GasPaidWei, m.EarnedWei, m.SlashedWei, m.RevertedTxs,
		m.ReorgedGasPaidWei, m.ReorgedEarnedWei, m.ReorgedSlashedWei, m.ReorgedRevertedTxs} {
		v.WithLabelValues(label)
	}
}

// weiFloat is wei for a Prometheus counter, which holds a float64 (exact to 2^53 wei, about
// 0.009 ETH, and to 16 digits past it); the journal keeps the exact integers.
func weiFloat(v *big.Int) float64 {
	if v == nil {
		return 0
	}
	f, _ := new(big.Float).SetInt(v).Float64()
	return f
}
