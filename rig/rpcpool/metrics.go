package rpcpool

import "github.com/prometheus/client_golang/prometheus"

// The endpoints' series, labelled by endpoint (its URL with credentials redacted), read from
// Status at each scrape. deploy/prometheus/pricerig-alerts.yml's PricerigRPCEndpointsLow fires
// when fewer than two endpoints of a rig are up.
var (
	upDesc = prometheus.NewDesc("pricerig_rpc_endpoint_up",
		"1 while the RPC endpoint is in rotation (answering, the right chain id, its head within the lag allowed).", []string{"endpoint"}, nil)
	lagDesc = prometheus.NewDesc("pricerig_rpc_endpoint_head_lag_blocks",
		"Blocks the endpoint's head is behind the highest head of the rig's endpoints.", []string{"endpoint"}, nil)
	headDesc = prometheus.NewDesc("pricerig_rpc_endpoint_head",
		"The endpoint's last head block number.", []string{"endpoint"}, nil)
	errorsDesc = prometheus.NewDesc("pricerig_rpc_endpoint_errors_total",
		"Calls and probes the endpoint failed (no answer in time, a transport error).", []string{"endpoint"}, nil)
	latencyDesc = prometheus.NewDesc("pricerig_rpc_endpoint_latency_seconds",
		"The round trip of the endpoint's last answered call.", []string{"endpoint"}, nil)
)

// Collector is the pool's endpoints as Prometheus series.
type Collector struct{ Pool *Pool }

// Describe implements prometheus.Collector.
func (c Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{upDesc, lagDesc, headDesc, errorsDesc, latencyDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c Collector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.Pool.Status() {
		up := 0.0
		if s.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up, s.Endpoint)
		ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, float64(s.Lag), s.Endpoint)
		ch <- prometheus.MustNewConstMetric(headDesc, prometheus.GaugeValue, float64(s.Head), s.Endpoint)
		ch <- prometheus.MustNewConstMetric(errorsDesc, prometheus.CounterValue, float64(s.Errors), s.Endpoint)
		ch <- prometheus.MustNewConstMetric(latencyDesc, prometheus.GaugeValue, s.Latency.Seconds(), s.Endpoint)
	}
}
