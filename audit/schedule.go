package audit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"
)

// ParseSchedule reads a schedule as crontab writes it: five fields ("*/15 * * * *"), a
// descriptor ("@hourly", "@every 15m"), optionally prefixed by CRON_TZ=Zone.
func ParseSchedule(spec string) (cron.Schedule, error) {
	s, err := cron.ParseStandard(strings.TrimSpace(spec))
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %v (want five fields like \"*/15 * * * *\" or a descriptor like \"@every 15m\")", spec, err)
	}
	return s, nil
}

// NextRuns lists the next n times a schedule fires after t.
func NextRuns(s cron.Schedule, t time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	for range n {
		t = s.Next(t)
		if t.IsZero() {
			break
		}
		out = append(out, t)
	}
	return out
}

// Scheduler runs an audit on a cron schedule, in-process, never two at once: a run that fires
// while the previous one is still going is skipped (cron.SkipIfStillRunning), logged, and the
// next fire time tries again.
type Scheduler struct {
	Schedule cron.Schedule
	// Audit runs one audit.
	Audit func(ctx context.Context) Report
	// Metrics, if set, is updated after every run.
	Metrics *Metrics
	// Logger logs each run; nil discards.
	Logger *slog.Logger
	// OnReport, if set, receives every report (the command prints it).
	OnReport func(Report)
	// RunAtStart runs one audit as soon as Run starts, through the same no-overlap guard, so the
	// gauges are filled before the first fire time.
	RunAtStart bool

	once    sync.Once
	job     cron.Job
	running chan struct{} // holds a token while a run is in progress, so Run can wait for it
}

func (s *Scheduler) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// Job is the guarded job the schedule fires: one audit, its metrics and its log line. Calling
// Run on it while an earlier call is still running returns at once without auditing.
func (s *Scheduler) Job(ctx context.Context) cron.Job {
	s.once.Do(func() {
		log := cronLogger{s.logger()}
		s.running = make(chan struct{}, 1)
		s.job = cron.NewChain(cron.SkipIfStillRunning(log)).Then(cron.FuncJob(func() { s.runOnce(ctx) }))
	})
	return s.job
}

func (s *Scheduler) runOnce(ctx context.Context) {
	select {
	case s.running <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-s.running }()
	if ctx.Err() != nil {
		return
	}
	rep := s.Audit(ctx)
	if s.Metrics != nil {
		s.Metrics.Observe(rep)
	}
	attrs := []any{
		slog.Time("at", rep.At), slog.Bool("healthy", rep.Healthy()), slog.Int("findings", len(rep.Findings)),
		slog.Duration("took", rep.Took),
	}
	var names []string
	for _, f := range rep.Findings {
		names = append(names, f.Name)
	}
	if len(names) > 0 {
		attrs = append(attrs, slog.String("names", strings.Join(names, ",")))
	}
	for _, c := range rep.Checks {
		if c.State == CheckError {
			attrs = append(attrs, slog.String(c.Name+"_error", c.Detail))
		}
	}
	level := slog.LevelInfo
	if !rep.Healthy() {
		level = slog.LevelWarn
	}
	s.logger().Log(ctx, level, "audit run", attrs...)
	if s.OnReport != nil {
		s.OnReport(rep)
	}
}

// Run schedules the audit and blocks until ctx ends, then waits for a run in progress to see
// its context cancelled and return.
func (s *Scheduler) Run(ctx context.Context) error {
	if s.Schedule == nil || s.Audit == nil {
		return fmt.Errorf("audit: a scheduler needs a schedule and an audit")
	}
	job := s.Job(ctx)
	c := cron.New(cron.WithLogger(cronLogger{s.logger()}))
	c.Schedule(s.Schedule, job)
	c.Start()
	s.logger().Info("audit scheduled", slog.Time("next", s.Schedule.Next(time.Now())))
	if s.RunAtStart {
		go job.Run()
	}
	<-ctx.Done()
	<-c.Stop().Done()
	// A run started at start-up is not cron's to wait for: take the token it holds.
	s.running <- struct{}{}
	<-s.running
	return nil
}

// cronLogger hands cron's log lines to slog: its chatter at debug, skipped runs as warnings.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) {
	if msg == "skip" {
		c.l.Warn("audit run skipped: the previous run is still going")
		return
	}
	c.l.Debug("cron "+msg, kv...)
}

func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron "+msg, append(kv, "error", err)...)
}

// Metrics are the audit's Prometheus gauges.
type Metrics struct {
	distance, up, latency *prometheus.GaugeVec // by source and symbol
	findings, lastRun, ok *prometheus.GaugeVec // by check
	byName                *prometheus.GaugeVec // findings by name
}

// NewMetrics registers the audit's gauges with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	g := func(name, help string, labels ...string) *prometheus.GaugeVec {
		v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "pricerig", Subsystem: "audit", Name: name, Help: help}, labels)
		reg.MustRegister(v)
		return v
	}
	return &Metrics{
		distance: g("source_distance_bps", "Largest distance of a source's price to the reconciled answer over the last run's minutes, in basis points.", "source", "symbol"),
		up:       g("source_up", "1 when the source answered every minute it was asked in the last run, 0 when it failed one; absent when it was not asked.", "source", "symbol"),
		latency:  g("source_latency_seconds", "Longest request of the source in the last run.", "source", "symbol"),
		findings: g("check_findings", "Findings of the check in the last run.", "check"),
		lastRun:  g("check_last_run_timestamp_seconds", "When the check last ran (unix seconds).", "check"),
		ok:       g("check_last_run_ok", "1 when the check's last run ran and found nothing, 0 otherwise.", "check"),
		byName:   g("findings", "Findings of the last run by name (source_drift, near_miss, …).", "name"),
	}
}

// Observe sets the gauges from a report. Source gauges are replaced wholesale, so a source no
// longer audited disappears; skipped checks keep their last values.
func (m *Metrics) Observe(r Report) {
	m.distance.Reset()
	m.up.Reset()
	m.latency.Reset()
	for _, s := range r.Sources.Summaries {
		if s.MaxDistanceCentiBps >= 0 {
			// a gauge is a float by nature; this is a report, not the value path
			m.distance.WithLabelValues(s.Source, s.Symbol).Set(float64(s.MaxDistanceCentiBps) / 100)
		}
		if up, ok := s.Up(); ok {
			m.up.WithLabelValues(s.Source, s.Symbol).Set(boolFloat(up))
		}
		if s.Latency > 0 {
			m.latency.WithLabelValues(s.Source, s.Symbol).Set(s.Latency.Seconds())
		}
	}
	for _, c := range r.Checks {
		if c.State == CheckSkipped {
			continue
		}
		m.findings.WithLabelValues(c.Name).Set(float64(c.Findings))
		m.lastRun.WithLabelValues(c.Name).Set(float64(r.At.Unix()))
		m.ok.WithLabelValues(c.Name).Set(boolFloat(c.State == CheckOK))
	}
	m.byName.Reset()
	for _, f := range r.Findings {
		m.byName.WithLabelValues(f.Name).Inc()
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
