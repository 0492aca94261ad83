// Package web is the operator's page: one server-rendered HTML page that shows the rigs of a
// process, their tasks, the sources behind the last priced minutes, the last audit findings and
// the last doctor run, kept current by server-sent events; and the same sections as a
// self-contained HTML report for `pricerig audit --html`.
//
// It sits just under the command: cmd → web → audit (and doctor) → rig → feeds. It reads the
// audit's findings and report types, the doctor's checks, the rig's journal entries and the
// contract's binding, and none of them knows about it. What it reads goes through small
// interfaces it owns (Journal, AuditLog, DoctorLog, Chain), so a PostgreSQL journal or a recorded
// audit serve the page as the SQLite journal does.
//
// The page is read-only: it answers GET and HEAD only, takes no parameter, and shows no secret
// the process knows: the chain URL only as scheme and host, and every error redacted as stdout
// and stderr are (package redact; see README.md for what that rule can and cannot know).
package web

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

//go:embed page.html app.js app.css
var files embed.FS

var tmpl = template.Must(template.New("page.html").ParseFS(files, "page.html"))

// Journal is what the page reads of a rig journal; *journal.DBJournal has it.
type Journal interface {
	Since(ctx context.Context, t time.Time) ([]journal.Entry, error)
}

// AuditLog gives the last audit report recorded in a journal (the JSON `pricerig audit --json`
// prints); *journal.DBJournal has it. A journal without it shows no audit section.
type AuditLog interface {
	LastAudit(ctx context.Context) (at time.Time, report []byte, ok bool, err error)
}

// DoctorLog gives the last doctor report kept in a journal (the JSON `pricerig doctor --json`
// prints); *journal.DBJournal has it. A journal without one shows no doctor section.
type DoctorLog interface {
	LastDoctor(ctx context.Context) (at time.Time, report []byte, ok bool, err error)
}

// Ledgers give what each task cost and earned each rig; *journal.DBJournal has it.
type Ledgers interface {
	Ledger(ctx context.Context, since time.Time) (journal.Ledger, error)
}

// Chain is what the page reads of a node; *ethclient.Client has it.
type Chain interface {
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
}

// Process is one rig process: its journal, its rigs and, in relayed mode, the relayer that pays
// their gas.
type Process struct {
	Journal Journal
	RigIDs  []uint64
	Relayer *common.Address
}

// Options say what a Server shows.
type Options struct {
	Title    string // default "pricerig"
	Chain    Chain
	ChainURL string // shown as scheme and host only
	// Endpoints, when the rig has several RPC endpoints (rig/rpcpool), says how each fares at
	// each rendering; each is shown as scheme and host, in rotation or out and why.
	Endpoints func() []Endpoint
	Contract  common.Address
	JobID     uint32 // default 2
	Processes []Process
	// Recorder holds the last priced minutes; nil leaves the sources section empty.
	Recorder *Recorder
	// SelfCheckShare is the share of the tolerance (percent) past which a distance turns amber;
	// default 50, as the rig's --self-check-share.
	SelfCheckShare int
	// Role is the instance's role: "single" until instances share a PostgreSQL journal and
	// elect a leader.
	Role string
	// RoleOf, when set, gives the role at each rendering (a follower may take over).
	RoleOf func() string
	// Money gives what a task cost and earned one rig; nil reads it from each process's
	// journal when the journal keeps accounts (Ledgers), else leaves the columns empty.
	Money func(journal.Entry) Money
	// Window is how far back the tasks section looks (default 24h); MaxTasks caps its rows
	// (default 200).
	Window   time.Duration
	MaxTasks int
	// Poll is how often the page's data is read while a browser watches; default 1s.
	Poll   time.Duration
	Public bool // served on a non-loopback address: any Host header is accepted
	Logger *slog.Logger
	Now    func() time.Time
}

// Server serves the page and its live updates.
type Server struct {
	opts Options

	mu        sync.Mutex
	tolerance uint32 // read from the chain once
	subs      map[chan string]struct{}
	last      string
}

// New returns a server; Run must run for the page to update live.
func New(opts Options) *Server {
	if opts.Title == "" {
		opts.Title = "pricerig"
	}
	if opts.JobID == 0 {
		opts.JobID = 2
	}
	if opts.SelfCheckShare <= 0 {
		opts.SelfCheckShare = 50
	}
	if opts.Role == "" {
		opts.Role = "single"
	}
	if opts.Window <= 0 {
		opts.Window = 24 * time.Hour
	}
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = 200
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Server{opts: opts, subs: map[chan string]struct{}{}}
}

// Build reads the journals, the chain and the recorder into a page. What cannot be read is said
// on the page, not returned: a page that shows half is better than none. Every error it says is
// redacted as the process's stdout and stderr are (redact.Error: the RPC URL's key, which
// go-ethereum's errors carry whole, every source's key, the journal's password); the texts it
// reads from the journal were redacted when they were stored.
func (s *Server) Build(ctx context.Context) Page {
	o := s.opts
	contract := agentrig.NewAgentRig()
	l := limits{toleranceBps: s.toleranceOf(ctx, contract), sharePercent: o.SelfCheckShare}
	p := Page{Title: o.Title, Generated: o.Now().UTC().Format("15:04:05 UTC")}
	if o.ChainURL != "" {
		p.Facts = append(p.Facts, Fact{"chain", RedactURL(o.ChainURL)})
	}
	if o.Endpoints != nil {
		p.Facts = append(p.Facts, endpointFacts(o.Endpoints())...)
	}
	p.Facts = append(p.Facts, Fact{"contract", o.Contract.Hex()}, Fact{"job", fmt.Sprint(o.JobID)})
	if l.toleranceBps > 0 {
		p.Facts = append(p.Facts, Fact{"tolerance", fmt.Sprintf("%d bps (amber past %d %%)", l.toleranceBps, o.SelfCheckShare)})
	}
	role := o.Role
	if o.RoleOf != nil {
		role = o.RoleOf()
	}
	p.Facts = append(p.Facts, Fact{"role", role})

	var entries []journal.Entry
	var auditAt, doctorAt time.Time
	var ledgers []journal.Ledger
	for _, proc := range o.Processes {
		if lj, ok := proc.Journal.(Ledgers); ok && o.Money == nil {
			// Twice the window: a task in the window may have been drawn and committed before it.
			l, err := lj.Ledger(ctx, o.Now().Add(-2*o.Window))
			if err != nil {
				p.RigsNote = "journal accounts unreadable: " + redact.Error(err)
			} else {
				ledgers = append(ledgers, l)
			}
		}
		p.Rigs = append(p.Rigs, s.rigViews(ctx, contract, proc, role)...)
		if proc.Journal != nil {
			es, err := proc.Journal.Since(ctx, o.Now().Add(-o.Window))
			if err != nil {
				p.RigsNote = "journal unreadable: " + redact.Error(err)
			}
			for _, e := range es {
				if slices.Contains(proc.RigIDs, e.RigID) || len(proc.RigIDs) == 0 {
					entries = append(entries, e)
				}
			}
			if log, ok := proc.Journal.(DoctorLog); ok {
				at, report, found, err := log.LastDoctor(ctx)
				switch {
				case err != nil:
					p.Doctor = &DoctorView{Unreadable: "unreadable: " + err.Error()}
				case found && at.After(doctorAt):
					p.Doctor, doctorAt = doctorViewOf(at, report), at
				}
			}
			if log, ok := proc.Journal.(AuditLog); ok {
				at, report, found, err := log.LastAudit(ctx)
				switch {
				case err != nil:
					p.Audit = &AuditView{At: "unreadable: " + redact.Error(err)}
				case found && at.After(auditAt):
					if v, err := auditViewOf(report); err == nil {
						p.Audit, auditAt = v, at
					} else {
						p.Audit = &AuditView{At: redact.Error(err)}
					}
				}
			}
		}
	}
	money := o.Money
	if money == nil && len(ledgers) > 0 {
		money = LedgerMoney(ledgers...)
	}
	p.Tasks = taskViews(entries, l, money)
	if len(p.Tasks) > o.MaxTasks {
		p.Tasks = p.Tasks[:o.MaxTasks]
	}
	if o.Recorder != nil {
		p.Minutes = minuteViews(o.Recorder.Recent(), l)
	}
	return p
}

// toleranceOf reads the job's tolerance once; 0 while the chain cannot be read.
func (s *Server) toleranceOf(ctx context.Context, c *agentrig.AgentRig) uint32 {
	s.mu.Lock()
	tol := s.tolerance
	s.mu.Unlock()
	if tol > 0 || s.opts.Chain == nil {
		return tol
	}
	out, err := s.opts.Chain.CallContract(ctx, ethereum.CallMsg{To: &s.opts.Contract, Data: c.PackJobOf(s.opts.JobID)}, nil)
	if err != nil {
		return 0
	}
	job, err := c.UnpackJobOf(out)
	if err != nil {
		return 0
	}
	s.mu.Lock()
	s.tolerance = job.ToleranceBps
	s.mu.Unlock()
	return job.ToleranceBps
}

func (s *Server) rigViews(ctx context.Context, c *agentrig.AgentRig, proc Process, role string) []RigView {
	var out []RigView
	for _, id := range proc.RigIDs {
		v := RigView{ID: id, Role: role}
		if s.opts.Chain == nil {
			out = append(out, v)
			continue
		}
		info, err := s.call(ctx, c.PackRigOf(id))
		var r agentrig.AgentRigRigInfo
		if err == nil {
			r, err = c.UnpackRigOf(info)
		}
		if err != nil {
			v.Err = "rigOf: " + redact.Error(err)
			out = append(out, v)
			continue
		}
		v.Operator, v.Owner, v.Active = r.Operator.Hex(), r.Owner.Hex(), r.Active
		v.Stake, v.Locked = audit.FormatETH(r.Stake), audit.FormatETH(r.Locked)
		if b, err := s.call(ctx, c.PackCredits(r.Operator)); err == nil {
			if credits, err := c.UnpackCredits(b); err == nil {
				v.Credits = audit.FormatETH(credits)
			}
		}
		sender := r.Operator
		if proc.Relayer != nil {
			sender = *proc.Relayer
		}
		v.Sender = sender.Hex()
		if bal, err := s.opts.Chain.BalanceAt(ctx, sender, nil); err == nil {
			v.Balance = audit.FormatETH(bal)
		}
		out = append(out, v)
	}
	return out
}

func (s *Server) call(ctx context.Context, data []byte) ([]byte, error) {
	return agentrig.CallView(ctx, s.opts.Chain, s.opts.Contract, data)
}

// Render writes the whole page.
func Render(w *bytes.Buffer, p Page) error {
	var css template.CSS
	if p.Static {
		b, err := files.ReadFile("app.css")
		if err != nil {
			return err
		}
		css = template.CSS(b) // our own file, embedded
	}
	return tmpl.ExecuteTemplate(w, "page", struct {
		Page
		CSS template.CSS
	}{p, css})
}

func renderLive(p Page) (string, error) {
	var b bytes.Buffer
	err := tmpl.ExecuteTemplate(&b, "live", p)
	return b.String(), err
}

// Handler serves the page: / (the page), /events (its live updates), /app.js and /app.css.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /app.js", s.static("app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /app.css", s.static("app.css", "text/css; charset=utf-8"))
	return s.guard(mux)
}

// guard answers only reads, and, on a loopback address, only requests naming a loopback host:
// a web page elsewhere cannot read the operator's page through DNS rebinding.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the operator's page is read-only", http.StatusMethodNotAllowed)
			return
		}
		if !s.opts.Public && !loopbackHost(r.Host) {
			http.Error(w, "this page answers on a loopback host name only", http.StatusMisdirectedRequest)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) static(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		b, err := files.ReadFile(name)
		if err != nil {
			http.NotFound(w, nil)
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	if err := Render(&b, s.Build(r.Context())); err != nil {
		s.opts.Logger.Error("operator page", "error", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// events streams the live part of the page: at once, then whenever it changes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	ch := make(chan string, 1)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}()
	first, err := renderLive(s.Build(r.Context()))
	if err != nil {
		s.opts.Logger.Error("operator page", "error", err)
		return
	}
	if err := writeEvent(w, first); err != nil || rc.Flush() != nil {
		return
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case html := <-ch:
			if html == first {
				continue
			}
			first = ""
			if err := writeEvent(w, html); err != nil || rc.Flush() != nil {
				return
			}
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

func writeEvent(w http.ResponseWriter, html string) error {
	var b strings.Builder
	b.WriteString("event: live\n")
	for _, line := range strings.Split(html, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteString("\n")
	}
	b.WriteString("\n")
	_, err := fmt.Fprint(w, b.String())
	return err
}

// Run reads the page's data every Poll while a browser watches and sends the live part to
// each watcher when it changed. It returns when ctx ends.
func (s *Server) Run(ctx context.Context) {
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		watched := len(s.subs) > 0
		s.mu.Unlock()
		if !watched {
			continue
		}
		html, err := renderLive(s.Build(ctx))
		if err != nil {
			s.opts.Logger.Error("operator page", "error", err)
			continue
		}
		s.mu.Lock()
		if html != s.last {
			s.last = html
			for ch := range s.subs {
				select { // keep only the newest rendering for a slow watcher
				case <-ch:
				default:
				}
				ch <- html
			}
		}
		s.mu.Unlock()
	}
}

// Listen opens addr for the page. A non-loopback address (or a host name other than
// localhost) is refused unless public: the page is for the operator's own machine, or behind
// their own proxy.
func Listen(addr string, public bool) (net.Listener, error) {
	if err := CheckAddr(addr, public); err != nil {
		return nil, err
	}
	return net.Listen("tcp", addr)
}

// CheckAddr is Listen's check of addr, for commands that reject bad flags before doing
// anything.
func CheckAddr(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, like 127.0.0.1:9464", addr)
	}
	if !public && !loopbackHost(host) {
		return fmt.Errorf("--http %q is not a loopback address; the page would be reachable from other machines (add --http-public to mean it)", addr)
	}
	return nil
}

// Endpoint is one of a rig's RPC endpoints as the page shows it.
type Endpoint struct {
	URL          string // shown as scheme and host only
	Up           bool
	Reason       string // why it is out of rotation
	Head, Lag    uint64
	Errors       uint64
	LatencyMilli int64
}

// endpointFacts is a header fact per endpoint: in rotation with its head, or out and why.
func endpointFacts(eps []Endpoint) []Fact {
	out := make([]Fact, 0, len(eps))
	for _, e := range eps {
		v := fmt.Sprintf("%s up, head %d, %d ms", RedactURL(e.URL), e.Head, e.LatencyMilli)
		if !e.Up {
			v = fmt.Sprintf("%s OUT (%s), head %d, %d behind", RedactURL(e.URL), redact.String(e.Reason), e.Head, e.Lag)
		}
		if e.Errors > 0 {
			v += fmt.Sprintf(", %d errors", e.Errors)
		}
		out = append(out, Fact{"rpc", v})
	}
	return out
}

// RedactURL keeps a URL's scheme and host only: RPC providers put API keys in the path, the
// query or the user part.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(hidden)"
	}
	out := u.Scheme + "://" + u.Host
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		out += "/…"
	}
	return out
}
