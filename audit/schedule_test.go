package audit

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/pricerig/pricerig/internal/syncbuf"
)

func TestScheduleFiresAtTheExpectedTimes(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec string
		from time.Time
		want []time.Time
	}{
		{"CRON_TZ=UTC */15 * * * *", mustTime("2026-11-24T10:07:30Z"),
			[]time.Time{mustTime("2026-11-24T10:15:00Z"), mustTime("2026-11-24T10:30:00Z"), mustTime("2026-11-24T10:45:00Z")}},
		{"CRON_TZ=UTC 0 14 * * 1-5", mustTime("2026-11-27T15:00:00Z"), // Friday after 14:00: Monday, Tuesday, Wednesday
			[]time.Time{mustTime("2026-11-30T14:00:00Z"), mustTime("2026-12-01T14:00:00Z"), mustTime("2026-12-02T14:00:00Z")}},
		{"CRON_TZ=UTC @hourly", mustTime("2026-11-24T10:07:30Z"),
			[]time.Time{mustTime("2026-11-24T11:00:00Z"), mustTime("2026-11-24T12:00:00Z"), mustTime("2026-11-24T13:00:00Z")}},
		// @every counts from the instant given, rounded down to the second
		{"@every 15m", mustTime("2026-11-24T10:07:30Z"),
			[]time.Time{mustTime("2026-11-24T10:22:30Z"), mustTime("2026-11-24T10:37:30Z"), mustTime("2026-11-24T10:52:30Z")}},
		// 9:35 New York across the end of daylight saving time (2026-11-01): 13:35 UTC, then 14:35
		{"CRON_TZ=America/New_York 35 9 * * *", time.Date(2026, 10, 31, 12, 0, 0, 0, ny),
			[]time.Time{mustTime("2026-11-01T14:35:00Z"), mustTime("2026-11-02T14:35:00Z"), mustTime("2026-11-03T14:35:00Z")}},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := ParseSchedule(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got := NextRuns(s, tc.from, len(tc.want))
			for i := range got {
				if !got[i].Equal(tc.want[i]) {
					t.Errorf("run %d at %s, want %s", i, got[i].UTC(), tc.want[i])
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("%d runs, want %d", len(got), len(tc.want))
			}
		})
	}
}

func TestParseScheduleRejects(t *testing.T) {
	for _, spec := range []string{"", "* * *", "61 * * * *", "* * * * * *", "@every", "@every soon", "@fortnightly", "CRON_TZ=Mars/Base * * * * *"} {
		if _, err := ParseSchedule(spec); err == nil || !strings.Contains(err.Error(), "schedule") {
			t.Errorf("ParseSchedule(%q) = %v, want a schedule error", spec, err)
		}
	}
}

func TestSchedulerSkipsWhileARunIsGoing(t *testing.T) {
	var logs syncbuf.Buffer
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	s := &Scheduler{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Audit: func(context.Context) Report {
			if runs.Add(1) == 1 {
				close(started)
				<-release
			}
			return Report{At: tuesday}
		},
	}
	job := s.Job(context.Background())
	first := make(chan struct{})
	go func() {
		job.Run()
		close(first)
	}()
	<-started
	job.Run() // fires while the first run holds: returns at once, without auditing
	if n := runs.Load(); n != 1 {
		t.Fatalf("%d runs while the first was going, want 1", n)
	}
	if !strings.Contains(logs.String(), "audit run skipped") {
		t.Errorf("the skip was not logged:\n%s", logs.String())
	}
	close(release)
	<-first
	job.Run() // the first is done: this one runs
	if n := runs.Load(); n != 2 {
		t.Errorf("%d runs after the first finished, want 2", n)
	}
	if got := strings.Count(logs.String(), `msg="audit run"`); got != 2 {
		t.Errorf("%d runs logged, want 2:\n%s", got, logs.String())
	}
}

func TestSchedulerRunStartsAtOnceAndWaitsForTheRunOnStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	sched, err := ParseSchedule("@yearly") // never fires during the test
	if err != nil {
		t.Fatal(err)
	}
	var finished atomic.Bool
	inRun := make(chan struct{})
	reports := make(chan Report, 1)
	s := &Scheduler{
		Schedule:   sched,
		RunAtStart: true,
		Audit: func(ctx context.Context) Report {
			close(inRun)
			<-ctx.Done() // the run in progress sees the stop and winds down
			finished.Store(true)
			return Report{At: tuesday}
		},
		OnReport: func(r Report) { reports <- r },
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	<-inRun // the start-up run, before any fire time
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !finished.Load() {
		t.Error("Run returned before the run in progress finished")
	}
	select {
	case r := <-reports:
		if !r.At.Equal(tuesday) {
			t.Errorf("report at %s", r.At)
		}
	default:
		t.Error("the run in progress was not reported")
	}
}

func gauge(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if reflect.DeepEqual(labelMap(m), labels) {
				return m.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

func labelMap(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func TestMetricsFollowTheReport(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	src := CheckSources([]Sample{
		{Result: result("NVDA", m, priced("a", "100", m), priced("b", "100.15", m), priced("c", "100", m), failed("d", "error", "boom"), failed("e", "not_covered", "delay"))},
	}, Thresholds{}.WithDefaults(25))
	rep := Report{At: m.Add(90 * time.Second), Sources: src, Findings: src.Findings, Checks: []CheckResult{
		{Name: CheckSourcesName, State: CheckFindings, Findings: len(src.Findings)},
		{Name: CheckRigName, State: CheckOK},
		{Name: CheckHistoryName, State: CheckSkipped},
	}}
	reg := prometheus.NewRegistry()
	metrics := NewMetrics(reg)
	metrics.Observe(rep)
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
		absent bool
	}{
		{"pricerig_audit_source_distance_bps", map[string]string{"source": "b", "symbol": "NVDA"}, 15, false},
		{"pricerig_audit_source_distance_bps", map[string]string{"source": "a", "symbol": "NVDA"}, 0, false},
		{"pricerig_audit_source_distance_bps", map[string]string{"source": "d", "symbol": "NVDA"}, 0, true},
		{"pricerig_audit_source_up", map[string]string{"source": "a", "symbol": "NVDA"}, 1, false},
		{"pricerig_audit_source_up", map[string]string{"source": "d", "symbol": "NVDA"}, 0, false},
		{"pricerig_audit_source_up", map[string]string{"source": "e", "symbol": "NVDA"}, 0, true},
		{"pricerig_audit_check_findings", map[string]string{"check": "sources"}, float64(len(src.Findings)), false},
		{"pricerig_audit_check_last_run_ok", map[string]string{"check": "sources"}, 0, false},
		{"pricerig_audit_check_last_run_ok", map[string]string{"check": "rig"}, 1, false},
		{"pricerig_audit_check_last_run_timestamp_seconds", map[string]string{"check": "rig"}, float64(rep.At.Unix()), false},
		{"pricerig_audit_check_last_run_ok", map[string]string{"check": "history"}, 0, true},
		{"pricerig_audit_findings", map[string]string{"name": "source_drift"}, 1, false},
		{"pricerig_audit_findings", map[string]string{"name": "source_down"}, 1, false},
	}
	for _, tc := range tests {
		got, ok := gauge(t, reg, tc.name, tc.labels)
		switch {
		case tc.absent && ok:
			t.Errorf("%s%v = %v, want absent", tc.name, tc.labels, got)
		case !tc.absent && (!ok || got != tc.want):
			t.Errorf("%s%v = %v (present %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	if len(src.Findings) != 2 {
		t.Fatalf("findings %v, want a drift and a down source", names(src.Findings))
	}

	// the next run no longer sees source b: its gauges go
	metrics.Observe(Report{At: rep.At.Add(time.Minute), Checks: rep.Checks[:1]})
	if _, ok := gauge(t, reg, "pricerig_audit_source_distance_bps", map[string]string{"source": "b", "symbol": "NVDA"}); ok {
		t.Error("a source no longer audited kept its gauge")
	}
	if _, ok := gauge(t, reg, "pricerig_audit_findings", map[string]string{"name": "source_drift"}); ok {
		t.Error("a finding of the previous run kept its gauge")
	}
}
