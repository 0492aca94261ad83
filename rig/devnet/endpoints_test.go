package devnet

import (
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/rig/internal/nodetest"
)

// endpointWindows are the commit and reveal windows of the endpoint tests: shorter than an
// endpoint's outage, so a rig whose only endpoint is out misses its window.
const endpointWindows = 20 * time.Second

// outage is how long the chaos keeps an endpoint frozen or killed at a time: longer than a
// window. cycle is an outage and the time the endpoint is back.
const (
	outage = 25 * time.Second
	cycle  = 45 * time.Second
)

// endpointChaos is three proxies in front of the devnet's node for each rig process: the first
// frozen (accepting connections, never answering) for an outage, then back, then frozen again;
// the second killed and restarted on the same port the same way, offset; the third always
// healthy. Each process's outages are offset by a third of the cycle from the last one's, so
// some process always reaches the node through its first endpoint (and draws): with one endpoint
// each, a process whose outage covers a window misses it while the others answer.
type endpointChaos struct {
	proxies [][]*nodetest.Proxy
	stop    chan struct{}
	done    sync.WaitGroup
}

func newEndpointChaos(t *testing.T, processes int, target string) *endpointChaos {
	c := &endpointChaos{stop: make(chan struct{})}
	for range processes {
		var ps []*nodetest.Proxy
		for range 3 {
			p, err := nodetest.NewProxy(target)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			ps = append(ps, p)
		}
		c.proxies = append(c.proxies, ps)
	}
	return c
}

// out says whether an endpoint whose outages start at offset is out at n into the chaos.
func out(n, offset time.Duration) bool { return (n+cycle-offset%cycle)%cycle < outage }

// start begins the outages, then moves them on every second.
func (c *endpointChaos) start(t *testing.T) {
	killed := make([]bool, len(c.proxies))
	began := time.Now()
	step := func() {
		n := time.Since(began)
		for i, ps := range c.proxies {
			offset := time.Duration(i) * cycle / 3
			if out(n, offset) {
				ps[0].Freeze()
			} else {
				ps[0].Thaw()
			}
			kill := out(n, offset+cycle/2)
			switch {
			case kill && !killed[i]:
				ps[1].Kill()
			case !kill && killed[i]:
				if err := ps[1].Restart(); err != nil {
					t.Errorf("restarting an endpoint: %v", err)
				}
			}
			killed[i] = kill
		}
	}
	step()
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		for {
			select {
			case <-c.stop:
				return
			case <-time.After(time.Second):
				step()
			}
		}
	}()
}

func (c *endpointChaos) end() {
	close(c.stop)
	c.done.Wait()
	for _, ps := range c.proxies {
		ps[0].Thaw()
	}
}

// urls is process i's endpoints: all three, or the first alone.
func (c *endpointChaos) urls(i int, all bool) []string {
	if !all {
		return []string{c.proxies[i][0].URL}
	}
	var out []string
	for _, p := range c.proxies[i] {
		out = append(out, p.URL)
	}
	return out
}

// runThroughChaos orders a round of tasks while the endpoints fail and reports how many were
// answered by every drawn rig (revealed and agreeing), and how many transactions reverted.
func runThroughChaos(t *testing.T, allEndpoints bool) (tasks, answeredByAll, reverted int) {
	var chaos *endpointChaos
	d, ctx := startDevnet(t, Options{CommitWindow: endpointWindows, RevealWindow: endpointWindows, Heartbeat: time.Second,
		RPCURLs: func(i int, url string) []string {
			if chaos == nil {
				chaos = newEndpointChaos(t, 3, url)
			}
			return chaos.urls(i, allEndpoints)
		}})
	head, err := d.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chaos.start(t)
	defer chaos.end()
	for range 2 { // two rounds, the second drawn while other endpoints are out
		round, err := d.Order(ctx, []string{"NVDA", "TSLA", "SPY"}, testMinute())
		if err != nil {
			t.Fatal(err)
		}
		reports, err := d.Wait(ctx, round)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reports {
			tasks++
			if r.Agreed && r.Reveals == 3 && r.Agree == 3 {
				answeredByAll++
			} else {
				t.Logf("task %d: %+v", r.TaskID, r)
			}
		}
	}
	end, err := d.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mined, err := d.Mined(ctx, head, end)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mined {
		if m.Reverted {
			reverted++
			t.Logf("reverted: %s %v", m.Method, m.Tasks)
		}
	}
	return tasks, answeredByAll, reverted
}

// Issue 36's done-when: three rig processes, each given three endpoints of which the first is
// frozen and the second killed and restarted for tens of seconds at a time (the third always
// healthy), answer every task: every drawn rig revealed inside the agreement (0 slashed), no
// transaction reverted. The same run with one endpoint per rig (the first) fails.
func TestRigsRideOutEndpointOutagesWithSeveralEndpoints(t *testing.T) {
	t.Run("three endpoints each", func(t *testing.T) {
		tasks, all, reverted := runThroughChaos(t, true)
		if tasks != 6 || all != tasks || reverted != 0 {
			t.Fatalf("%d of %d tasks answered by every drawn rig, %d reverted; want all, 0", all, tasks, reverted)
		}
	})
	t.Run("one endpoint each", func(t *testing.T) {
		tasks, all, _ := runThroughChaos(t, false)
		if all == tasks {
			t.Fatalf("every one of %d tasks answered by every drawn rig through a frozen endpoint: the chaos proves nothing", tasks)
		}
	})
}
