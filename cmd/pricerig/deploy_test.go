package main

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/rpcpool"
)

// exportedSeries are the names of every series the rig and the audit export, histograms with
// their _bucket, _sum and _count: the rig's from its registry, the audit's (vectors that hold no
// child until a run with sources) from where audit/schedule.go names them.
func exportedSeries(t *testing.T) map[string]bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	rm := rig.NewMetrics(reg)
	rm.SourceErrors.WithLabelValues("x", "y") // vectors appear in Gather once they hold a child
	rm.Refused.WithLabelValues("x")
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			names[f.GetName()+suffix] = true
		}
	}
	// the endpoints' series (several --rpc), named by their descriptions: they hold a sample per
	// endpoint of a running pool
	descs := make(chan *prometheus.Desc, 16)
	rpcpool.Collector{}.Describe(descs)
	close(descs)
	for d := range descs {
		if m := regexp.MustCompile(`fqName: "([a-z_]+)"`).FindStringSubmatch(d.String()); m != nil {
			names[m[1]] = true
		}
	}
	src, err := os.ReadFile("../../audit/schedule.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`g\("([a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		names["pricerig_audit_"+m[1]] = true
	}
	if !names["pricerig_audit_source_up"] || !names["pricerig_rig_leader"] || !names["pricerig_rpc_endpoint_up"] {
		t.Fatalf("series not found: %v", names)
	}
	return names
}

var seriesName = regexp.MustCompile(`pricerig_[a-z_]+`)

// The shipped alert rules and dashboard name only series pricerig exports, and the alert rules
// cover what the README promises.
func TestDeployFilesNameRealSeries(t *testing.T) {
	exported := exportedSeries(t)
	rules, err := os.ReadFile("../../deploy/prometheus/pricerig-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(rules, &parsed); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	alerts := map[string]bool{}
	for _, g := range parsed.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
			alerts[r.Alert] = true
		}
	}
	for _, want := range []string{"PricerigSlashed", "PricerigNearMiss", "PricerigMissedWindow", "PricerigLowBalance", "PricerigSourceDown", "PricerigNotLeaderAnywhere", "PricerigRevisedBar"} {
		if !alerts[want] {
			t.Errorf("alert rules lack %s", want)
		}
	}
	dashboard, err := os.ReadFile("../../deploy/grafana/pricerig-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(dashboard, &dash); err != nil {
		t.Fatal(err)
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("only %d expressions", len(exprs))
	}
	for _, e := range exprs {
		for _, name := range seriesName.FindAllString(e, -1) {
			if !exported[name] {
				t.Errorf("%q names %s, which pricerig does not export", e, name)
			}
		}
	}
	// The findings the rules select by name are the audit's.
	for _, e := range exprs {
		for _, m := range regexp.MustCompile(`name="([a-z_]+)"`).FindAllStringSubmatch(e, -1) {
			switch m[1] {
			case audit.Slashed, audit.NearMiss, audit.MissedWindow, audit.LowBalance, audit.Revised:
			default:
				t.Errorf("%q selects finding %q, which the audit does not name", e, m[1])
			}
		}
	}
}
