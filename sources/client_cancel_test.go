package sources

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestClientJoinerOutlivesCancelledSender: a caller that joined an identical request in flight
// must not inherit the cancellation of the caller that sent it (a reconciler that stopped early
// cancels its slow sources; the next Price of the same minute asks them again).
func TestClientJoinerOutlivesCancelledSender(t *testing.T) {
	arrived := make(chan struct{}, 2)
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			arrived <- struct{}{}
			<-r.Context().Done() // the first request hangs until its sender gives up
			return
		}
		w.Write([]byte(`ok`))
	}))
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{}, ClientOptions{})

	first, cancel := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	go func() { _, err := c.Get(first, "/same", nil); firstErr <- err }()
	<-arrived
	type result struct {
		resp *Response
		err  error
	}
	second := make(chan result, 1)
	go func() { r, err := c.Get(context.Background(), "/same", nil); second <- result{r, err} }()
	for c.callers.Load() < 2 {
		runtime.Gosched()
	}
	cancel()
	if err := <-firstErr; err == nil || !cancelled(err) {
		t.Errorf("the cancelled sender got %v", err)
	}
	r := <-second
	if r.err != nil || string(r.resp.Body) != "ok" {
		t.Fatalf("the joiner got %v, %v; want its own answer", r.resp, r.err)
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests, want 2", hits.Load())
	}
}
