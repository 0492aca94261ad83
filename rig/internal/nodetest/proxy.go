package nodetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

// Proxy stands in front of a real node (a devnet chain) as one RPC endpoint of several, and
// fails the way endpoints fail: killed (its port refuses connections) and restarted on the same
// port, frozen (it accepts connections and never answers), or lagging (it answers "latest" with
// a block some way behind the node's, and refusing websockets, whose heads would be the node's).
// HTTP and websockets both pass through it.
type Proxy struct {
	URL   string // http://127.0.0.1:PORT
	WSURL string // ws://127.0.0.1:PORT

	addr   string
	target *url.URL
	rp     *httputil.ReverseProxy

	mu     sync.Mutex
	srv    *http.Server
	frozen chan struct{} // closed on Thaw; nil while not frozen
	lag    uint64
	conns  map[net.Conn]bool
}

// NewProxy starts a proxy to the node at target (its http URL) on a free loopback port.
func NewProxy(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a frozen request given up is the test's doing
	p := &Proxy{addr: l.Addr().String(), target: u, rp: rp, conns: map[net.Conn]bool{}}
	p.URL, p.WSURL = "http://"+p.addr, "ws://"+p.addr
	p.serve(l)
	return p, nil
}

func (p *Proxy) serve(l net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(p.handle), ConnState: p.track}
	p.mu.Lock()
	p.srv = srv
	p.mu.Unlock()
	go func() { _ = srv.Serve(l) }()
}

// track keeps the open connections, so Kill can cut a websocket a hijack took from the server.
func (p *Proxy) track(c net.Conn, s http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch s {
	case http.StateNew:
		p.conns[c] = true
	case http.StateClosed:
		delete(p.conns, c)
	}
}

// Kill closes the port and every connection through it.
func (p *Proxy) Kill() {
	p.mu.Lock()
	srv, conns := p.srv, p.conns
	p.srv, p.conns = nil, map[net.Conn]bool{}
	p.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
}

// Restart opens the port again after Kill.
func (p *Proxy) Restart() error {
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("restarting the proxy on %s: %w", p.addr, err)
	}
	p.serve(l)
	return nil
}

// Freeze makes every request, new or waiting, hang until Thaw (or its client gives up).
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen == nil {
		p.frozen = make(chan struct{})
	}
}

// Thaw ends a Freeze: the requests held go on.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen != nil {
		close(p.frozen)
		p.frozen = nil
	}
}

// Lag makes the endpoint answer "latest" with the block n behind the node's head (0: none).
func (p *Proxy) Lag(n uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lag = n
}

// Close kills the proxy for good.
func (p *Proxy) Close() { p.Thaw(); p.Kill() }

func (p *Proxy) handle(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	frozen, lag := p.frozen, p.lag
	p.mu.Unlock()
	if frozen != nil {
		select {
		case <-frozen:
		case <-r.Context().Done():
			return
		}
	}
	if lag > 0 && strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		http.Error(w, "lagging: no subscriptions", http.StatusServiceUnavailable)
		return
	}
	if lag > 0 && r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = p.lagged(body, lag)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	p.rp.ServeHTTP(w, r)
}

// lagged rewrites "latest" in a single request's parameters to the block lag behind the node's
// head, read from the node itself.
func (p *Proxy) lagged(body []byte, lag uint64) []byte {
	if !bytes.Contains(body, []byte(`"latest"`)) || bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		return body
	}
	resp, err := http.Post(p.target.String(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		return body
	}
	defer resp.Body.Close()
	var head struct {
		Result string `json:"result"`
	}
	var n uint64
	if json.NewDecoder(resp.Body).Decode(&head) != nil {
		return body
	}
	if _, err := fmt.Sscanf(head.Result, "0x%x", &n); err != nil {
		return body
	}
	return bytes.ReplaceAll(body, []byte(`"latest"`), fmt.Appendf(nil, `"0x%x"`, n-min(n, lag)))
}
