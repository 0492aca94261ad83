// Package audit is pricerig's self-audit: it tells an operator, before the chain does, that a
// quote source has drifted, lost its key or gone down, that the rig's settled answers are creeping
// toward the edge of the tolerance or missing windows, that an operator or relayer is running out
// of gas money, or that the price history has holes.
//
// The checks are pure functions over what the audit gathered — reconciled results (CheckSources),
// journal entries (CheckRig), balances (CheckBalances) and stored history (CheckHistory) — so each
// can be tested on hand-made inputs; the Auditor gathers those inputs for one run, and Scheduler
// runs it on a cron schedule with Prometheus gauges. Every finding carries a stable machine name
// (source_drift, near_miss, …) that scripts can match on.
//
// Files:
//   - auditor.go: Config, the Auditor (one run: the window, the sources, the rig, the balances,
//     the history), the Journal and BalanceReader it reads through, Report and its exit code.
//   - window.go: Window and SelectWindow, the closed session minutes a run audits.
//   - sources.go: CheckSources and the source statuses (Status, Sample, Observation, Thresholds):
//     drift, staleness, outliers and failures of each source against the reconciled answer;
//     fetch.go: the run's fetches, one request shared by every audited minute a window covers.
//   - rig.go: CheckRig over the journal's entries (near misses, missed windows, slashes) and
//     CheckBalances (Balance, ParseETH); money.go: CheckMoney over the accounts' ledger.
//   - revised.go: the revisions check, answers given from a bar its source changed later
//     (Answered), re-derived with the new close; revised_run.go: its run (the Ledger and Marks
//     it reads, the window's bars asked again before the sources check).
//   - history.go: CheckHistory and CheckHistoryFailures over stored history (History, Stored);
//     store.go: StoreHistory, the history store as that History.
//   - finding.go: Finding and Severity, each finding's stable machine name.
//   - report.go: the report as text and JSON.
//   - schedule.go: ParseSchedule, NextRuns and Scheduler, the in-process cron with its gauges.
package audit
