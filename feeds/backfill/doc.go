// Package backfill fills a price history (feeds/history) from the sources of a spec at the
// fewest requests the providers allow, resumably: `pricerig backfill`. It plans the windows the
// store lacks, fetches them paced at each source's rate, writes each window (or page) through
// the store's API in one transaction, then reconciles every minute of the range into the store
// by the live reconciler's rules.
//
// Files:
//   - options.go: Options, the input a backfill refuses (ErrBadInput, Check) and its validation.
//   - members.go: each source of the spec as the backfill holds it: built behind its pacer,
//     what it can serve of the range, its gaps.
//   - policy.go: how a provider wants its history asked for (window, month, dates, pages) and
//     its floor of requests.
//   - plan.go: the plan: the windows missing from the store, stopped pages resumed, lead-ins.
//   - run.go: Backfill, New, Run, and the writer of fetched windows.
//   - fetch.go: fetching a window or a paged window, under one retry policy (again).
//   - pacer.go: Clock, and the pacer that holds a source's requests to its rate.
//   - reconcile.go: the sweep of the minutes into answers, pipelined with their writes.
//   - summary.go: Summary, Progress.
//   - calendar.go: small time helpers over market's session calendar.
package backfill
