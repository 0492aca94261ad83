package devnet

import (
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/journal"
)

// tcpProxy forwards connections to a target until killed: Kill closes the listener and cuts
// every connection, as a node restart or a dropped websocket would; Restore listens again on
// the same address.
type tcpProxy struct {
	target string
	addr   string
	mu     sync.Mutex
	l      net.Listener
	conns  map[net.Conn]bool
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{target: target, conns: map[net.Conn]bool{}}
	if err := p.listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

func (p *tcpProxy) listen(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.l, p.addr = l, l.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[up] = true, true
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return nil
}

func (p *tcpProxy) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		p.l.Close()
		p.l = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *tcpProxy) Restore(t *testing.T) {
	t.Helper()
	if err := p.listen(p.addr); err != nil {
		t.Fatal(err)
	}
}

// TestRigsFollowHeadsBySubscriptionAndPollWhenItDrops: every devnet rig process follows new
// heads over the node's websocket endpoint. When process 1's websocket is cut (its proxy
// killed) it falls back to polling over HTTP and still answers a task end to end; when the
// endpoint is back it subscribes again.
func TestRigsFollowHeadsBySubscriptionAndPollWhenItDrops(t *testing.T) {
	t.Parallel()
	var proxy *tcpProxy
	d, ctx := startDevnet(t, Options{HeadsURL: func(i int, ws string) string {
		if i != 0 {
			return ws
		}
		proxy = newTCPProxy(t, strings.TrimPrefix(ws, "ws://"))
		return "ws://" + proxy.addr
	}})
	for _, r := range d.Runners {
		waitFor(ctx, t, "every process subscribed", func() bool { return r.HeadsMode() == rig.HeadsSubscribed })
	}
	proxy.Kill()
	waitFor(ctx, t, "process 1 back to polling", func() bool { return d.Runners[0].HeadsMode() == rig.HeadsPolling })
	ids, err := d.Order(ctx, []string{"SPY"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reports[0].Agreed || reports[0].Reveals != 3 {
		t.Fatalf("with process 1 polling: %+v", reports[0])
	}
	if e, ok := d.entryOf(ctx, 0, ids[0]); !ok || e.State != journal.StateSettled {
		t.Fatalf("process 1's entry: %+v %v", e, ok)
	}
	if m := d.Runners[0].HeadsMode(); m != rig.HeadsPolling {
		t.Fatalf("process 1 follows heads by %s while its websocket is down", m)
	}
	proxy.Restore(t)
	waitFor(ctx, t, "process 1 subscribed again", func() bool { return d.Runners[0].HeadsMode() == rig.HeadsSubscribed })
}

// timeoutForDial bounds one websocket handshake: a loopback node answers in milliseconds.
const timeoutForDial = 5 * time.Second

// TestDialHeadsFindsTheWebsocketEndpointOrNone: an http URL of a node serving websockets on the
// same port yields a subscribed client; a node that serves only HTTP yields an error (the rig
// then polls), and a ws URL needs no second client.
func TestDialHeadsFindsTheWebsocketEndpointOrNone(t *testing.T) {
	t.Parallel()
	d, ctx := startDevnet(t, Options{Layout: []int{}})
	c, err := rig.DialHeads(ctx, d.Chain.URL, timeoutForDial)
	if err != nil || c == nil {
		t.Fatalf("devnet %s: %v", d.Chain.URL, err)
	}
	c.Close()
	if c, err := rig.DialHeads(ctx, d.Chain.WSURL, timeoutForDial); err != nil || c != nil {
		t.Fatalf("ws URL: %v %v, want no second client", c, err)
	}
	httpOnly := httptest.NewServer(rpc.NewServer())
	defer httpOnly.Close()
	if c, err := rig.DialHeads(ctx, httpOnly.URL, timeoutForDial); err == nil || c != nil {
		t.Fatalf("http-only node: %v, want an error", err)
	}
	if _, _, err := rig.WebsocketURL("ftp://x"); err == nil {
		t.Fatal("ftp URL has a websocket counterpart")
	}
	if ws, already, err := rig.WebsocketURL("https://rpc.example/v2/key"); err != nil || already || ws != "wss://rpc.example/v2/key" {
		t.Fatalf("https: %q %v %v", ws, already, err)
	}
}
