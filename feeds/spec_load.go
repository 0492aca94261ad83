package feeds

// The loader of sources.yaml: the top level, job, reconcile, networks, feeds and splits.

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/pricerig/pricerig/files"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
)

// LoadFile reads and loads a sources.yaml file.
func LoadFile(path string, opts LoadOptions) (*Spec, error) {
	data, err := files.Read(path, files.MaxSpec)
	if err != nil {
		return nil, err
	}
	if opts.File == "" {
		opts.File = path
	}
	return Load(data, opts)
}

// Load parses and validates a sources.yaml. It reports every problem it finds, not just the
// first, as a *LoadError naming file, line and key. A source whose key variable is unset is not
// an error: it is kept in Spec.Sources with Missing set, and a warning says so.
func Load(data []byte, opts LoadOptions) (*Spec, error) {
	if opts.File == "" {
		opts.File = DefaultFile
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	l := &loader{file: opts.File, opts: opts}
	spec := l.load(data)
	if len(l.errs) > 0 {
		sort.SliceStable(l.errs, func(i, j int) bool { return l.errs[i].Line < l.errs[j].Line })
		return nil, &LoadError{Problems: l.errs}
	}
	spec.Warnings = l.warns
	return spec, nil
}

// Limits on what the loader hands the YAML parser, whose time grows with the square of the lines
// and of the nesting (goccy/go-yaml v1.19): the shipped spec is a few kilobytes, about a hundred
// lines and four levels deep.
const (
	MaxSpecBytes = 64 << 10
	MaxSpecLines = 2000
	maxFlowDepth = 32
	maxIndent    = 64 // columns of leading spaces and "- " entries on a line
)

func (l *loader) load(data []byte) *Spec {
	spec := &Spec{File: l.file, Job: DefaultJob(), Rules: DefaultRules(), Splits: Splits{}}
	if len(data) > MaxSpecBytes {
		l.errs = append(l.errs, Problem{File: l.file, Msg: fmt.Sprintf("%d bytes is too large for a spec (at most %d)", len(data), MaxSpecBytes)})
		return spec
	}
	if lines := max(bytes.Count(data, []byte("\n")), bytes.Count(data, []byte("\r"))); lines >= MaxSpecLines {
		l.errs = append(l.errs, Problem{File: l.file, Msg: fmt.Sprintf("%d lines is too long for a spec (at most %d)", lines+1, MaxSpecLines)})
		return spec
	}
	if line := deepFlow(data); line > 0 {
		l.errs = append(l.errs, Problem{File: l.file, Line: line, Msg: fmt.Sprintf("[ and { nest deeper than %d", maxFlowDepth)})
		return spec
	}
	if line := deepIndent(data); line > 0 {
		l.errs = append(l.errs, Problem{File: l.file, Line: line, Msg: fmt.Sprintf("indented deeper than %d columns", maxIndent)})
		return spec
	}
	file, err := parser.ParseBytes(data, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			line := 0
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				line = tk.Position.Line
			}
			l.errs = append(l.errs, Problem{File: l.file, Line: line, Msg: "YAML syntax: " + ye.GetMessage()})
		} else {
			l.errs = append(l.errs, Problem{File: l.file, Msg: "YAML syntax: " + err.Error()})
		}
		return spec
	}
	var body ast.Node
	docs := 0
	for _, d := range file.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		docs++
		if docs == 1 {
			body = d.Body
		} else {
			l.errorf(d.Body, "", "a spec is one YAML document; this is document %d", docs)
		}
	}
	if body == nil {
		l.errs = append(l.errs, Problem{File: l.file, Msg: "empty spec: want version, sources and feeds"})
		return spec
	}
	top, ok := l.mapping(body, "")
	if !ok {
		return spec
	}
	var sourcesNode, feedsNode, splitsNode ast.Node
	have := map[string]bool{}
	for _, e := range top {
		have[e.key] = true
		switch e.key {
		case "version":
			if v, ok := l.integer(e.value, "version", 1, 1<<20); ok {
				if v != 1 {
					l.errorf(e.value, "version", "this pricerig reads spec version 1, not %d", v)
				}
				spec.Version = int(v)
			}
		case "spec_uri":
			if s, ok := l.scalar(e.value, "spec_uri"); ok {
				spec.SpecURI = strings.TrimSpace(s)
			}
		case "job":
			l.job(e.value, &spec.Job)
		case "reconcile":
			l.rules(e.value, &spec.Rules)
		case "sources":
			sourcesNode = e.value
		case "feeds":
			feedsNode = e.value
		case "splits":
			splitsNode = e.value
		case "refusal_answer":
			if v, ok := l.integer(e.value, "refusal_answer", 0, 1<<63-1); ok {
				a := numeric.Scaled(v)
				spec.RefusalAnswer = &a
			}
		case "networks":
			spec.Networks = l.networks(e.value)
		default:
			l.errorf(e.node, e.key, "unknown key (want version, spec_uri, job, refusal_answer, reconcile, sources, feeds, splits, networks)")
		}
	}
	for _, k := range []string{"version", "sources", "feeds"} {
		if !have[k] {
			l.errorf(body, k, "missing")
		}
	}
	declared := map[string]bool{} // every source name, even one with errors: no cascade into feeds
	if sourcesNode != nil {
		spec.Sources = l.sources(sourcesNode, declared)
	}
	if feedsNode != nil {
		spec.Feeds = l.feeds(feedsNode, declared)
	}
	if splitsNode != nil {
		spec.Splits = l.splits(splitsNode)
	}
	return spec
}

// deepFlow returns the line where flow collections ([ and {) outside quotes and comments nest
// deeper than maxFlowDepth, or 0.
func deepFlow(data []byte) int {
	depth, line := 0, 1
	var quote byte
	comment := false
	for i, c := range data {
		switch {
		case c == '\n':
			line++
			comment = false
			if quote == '\'' || quote == '"' {
				continue // quoted scalars may span lines
			}
		case comment:
		case quote != 0:
			if c == quote && (quote != '"' || i == 0 || data[i-1] != '\\') {
				quote = 0
			}
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			comment = true
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '{':
			depth++
			if depth > maxFlowDepth {
				return line
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return 0
}

// deepIndent returns the first line whose indentation — spaces, tabs and block entries ("- ",
// "? ", ": ") before its first other character — is wider than maxIndent, or 0.
func deepIndent(data []byte) int {
	line, col, leading := 1, 0, true
	for i, c := range data {
		switch {
		case c == '\n':
			line, col, leading = line+1, 0, true
			continue
		case !leading:
			continue
		case c == ' ' || c == '\t':
		case (c == '-' || c == '?' || c == ':') && (i+1 == len(data) || data[i+1] == ' ' || data[i+1] == '\n'):
		default:
			leading = false
			continue
		}
		col++
		if col > maxIndent {
			return line
		}
	}
	return 0
}

var addressPattern = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// networks reads networks: {NAME: {contract: 0x…}}.
func (l *loader) networks(n ast.Node) map[string]Network {
	entries, _ := l.mapping(n, "networks")
	out := map[string]Network{}
	for _, e := range entries {
		path := join("networks", e.key)
		nw := Network{Line: lineOf(e.node)}
		fields, _ := l.mapping(e.value, path)
		for _, f := range fields {
			switch f.key {
			case "contract":
				if text, ok := l.str(f.value, join(path, "contract")); ok {
					if !addressPattern.MatchString(text) {
						l.errorf(f.value, join(path, "contract"), "%q is not an address (0x and 40 hex digits; quote it)", clipText(text))
						continue
					}
					nw.Contract = text
				}
			case "blocks":
				if text, ok := l.str(f.value, join(path, "blocks")); ok {
					if text != "ethereum" && text != "nitro" {
						l.errorf(f.value, join(path, "blocks"), "%q: want ethereum (block.number is the chain's own) or nitro (the L1 block number, as on Robinhood Chain)", clipText(text))
						continue
					}
					nw.Blocks = text
				}
			case "rpcs":
				nw.RPCs = l.rpcs(f.value, join(path, "rpcs"))
			default:
				l.errorf(f.node, join(path, f.key), "unknown key (want contract, blocks or rpcs)")
			}
		}
		out[e.key] = nw
	}
	return out
}

// rpcs reads a network's RPC endpoints: a list of http(s) or ws(s) URLs (or one URL), each
// checked at its line; the rig and the chain commands use them all when no --rpc is given
// (rig/rpcpool). A URL's credentials never reach an error.
func (l *loader) rpcs(n ast.Node, path string) []string {
	urls, ok := l.list(n, path)
	if !ok {
		return nil
	}
	u, _ := l.unwrap(n, path)
	seq, _ := u.(*ast.SequenceNode)
	var out []string
	for i, raw := range urls {
		at, where := n, path
		if seq != nil {
			at, where = seq.Values[i], fmt.Sprintf("%s[%d]", path, i)
		}
		parsed, err := url.Parse(raw)
		if err != nil || parsed.Host == "" || !slices.Contains([]string{"http", "https", "ws", "wss"}, parsed.Scheme) {
			l.errorf(at, where, "%q is not an RPC URL (want http://, https://, ws:// or wss:// and a host)", clipText(redact.URL(raw)))
			continue
		}
		if slices.Contains(out, raw) {
			l.errorf(at, where, "%q is listed twice", clipText(redact.URL(raw)))
			continue
		}
		out = append(out, raw)
	}
	if len(urls) == 0 {
		l.errorf(n, path, "an empty list: name at least one RPC URL, or leave rpcs out")
	}
	return out
}

func (l *loader) job(n ast.Node, job *Job) {
	entries, _ := l.mapping(n, "job")
	for _, e := range entries {
		path := join("job", e.key)
		switch e.key {
		case "id":
			if v, ok := l.integer(e.value, path, 1, 1<<32-1); ok {
				job.ID = uint32(v)
			}
		case "scale":
			if v, ok := l.integer(e.value, path, 0, 77); ok {
				if v != numeric.Scale {
					l.errorf(e.value, path, "pricerig answers price × 10^%d; scale %d is not supported", numeric.Scale, v)
				}
				job.Scale = int(v)
			}
		case "tolerance_bps":
			if v, ok := l.integer(e.value, path, 1, 2000); ok {
				job.ToleranceBps = uint32(v)
			}
		case "quorum":
			if v, ok := l.integer(e.value, path, 2, 5); ok {
				job.Quorum = int(v)
			}
		case "price":
			if wei, ok := l.eth(e.value, path, numeric.MinPriceWei, numeric.MaxPriceWei); ok {
				job.Price = wei
			}
		case "slash":
			if wei, ok := l.eth(e.value, path, big.NewInt(0), numeric.MaxSlashWei); ok {
				job.Slash = wei
			}
		default:
			l.errorf(e.node, path, "unknown key (want id, scale, tolerance_bps, quorum, price, slash)")
		}
	}
}

// eth reads an amount of ETH ("0.00001", exact to the wei) between lo and hi wei.
func (l *loader) eth(n ast.Node, path string, lo, hi *big.Int) (*big.Int, bool) {
	text, ok := l.scalar(n, path)
	if !ok {
		return nil, false
	}
	wei, err := numeric.ParseETH(text)
	switch {
	case err != nil:
		l.errorf(n, path, "%v", err)
		return nil, false
	case wei.Cmp(lo) < 0 || wei.Cmp(hi) > 0:
		l.errorf(n, path, "%s ETH is outside %s to %s ETH", numeric.FormatETH(wei), numeric.FormatETH(lo), numeric.FormatETH(hi))
		return nil, false
	}
	return wei, true
}

func (l *loader) rules(n ast.Node, r *Rules) {
	entries, _ := l.mapping(n, "reconcile")
	for _, e := range entries {
		path := join("reconcile", e.key)
		switch e.key {
		case "min_sources":
			if v, ok := l.integer(e.value, path, 1, 64); ok {
				r.MinSources = int(v)
			}
		case "outlier_bps":
			if v, ok := l.integer(e.value, path, 1, 10000); ok {
				r.OutlierBps = uint32(v)
			}
		case "max_carry":
			if d, ok := l.duration(e.value, path, 31*24*time.Hour); ok {
				r.MaxCarry = d
			}
		case "window":
			if d, ok := l.duration(e.value, path, 24*time.Hour); ok {
				r.Window = d
			}
		case "deadline":
			if d, ok := l.duration(e.value, path, 10*time.Minute); ok {
				r.Deadline = d
			}
		case "early_quorum":
			if s, ok := l.scalar(e.value, path); ok && strings.TrimSpace(s) == "all" {
				r.EarlyQuorum = WaitForAll
			} else if ok {
				if v, ok := l.integer(e.value, path, 0, 64); ok {
					r.EarlyQuorum = int(v)
				}
			}
		case "sessions":
			if names, ok := l.list(e.value, path); ok {
				s, err := market.ParseSessions(names)
				switch {
				case err != nil:
					l.errorf(e.value, path, "%v", err)
				case len(s) == 0:
					l.errorf(e.value, path, "list at least one session")
				default:
					r.Sessions = s
				}
			}
		default:
			l.errorf(e.node, path, "unknown key (want min_sources, outlier_bps, max_carry, window, deadline, early_quorum, sessions)")
		}
	}
	if r.Window > r.MaxCarry {
		l.errorf(n, "reconcile.window", "window %s is longer than max_carry %s", r.Window, r.MaxCarry)
	}
}

// The keys every source has; a type adds its own (Factory.Options).

func (l *loader) feeds(n ast.Node, known map[string]bool) []Feed {
	entries, ok := l.mapping(n, "feeds")
	if ok && len(entries) == 0 {
		l.errorf(n, "feeds", "no feeds")
	}
	var out []Feed
	for _, e := range entries {
		path := join("feeds", e.key)
		if !symbolRE.MatchString(e.key) {
			l.errorf(e.node, path, "%q is not a symbol", e.key)
			continue
		}
		feed := Feed{Symbol: e.key, Line: lineOf(e.node)}
		members, ok := l.mapping(e.value, path)
		for _, m := range members {
			mpath := join(path, m.key)
			sym, ok := l.str(m.value, mpath)
			if !ok {
				continue
			}
			if !symbolRE.MatchString(sym) {
				l.errorf(m.value, mpath, "%q is not a provider symbol", sym)
				continue
			}
			if !known[m.key] {
				l.errorf(m.node, mpath, "no source named %q in sources", m.key)
				continue
			}
			feed.Sources = append(feed.Sources, FeedSource{Source: m.key, Symbol: sym})
		}
		if ok && len(members) == 0 {
			l.errorf(e.node, path, "a feed names at least one source")
		}
		out = append(out, feed)
	}
	return out
}

func (l *loader) splits(n ast.Node) Splits {
	out := Splits{}
	entries, _ := l.mapping(n, "splits")
	for _, e := range entries {
		path := join("splits", e.key)
		if !symbolRE.MatchString(e.key) {
			l.errorf(e.node, path, "%q is not a symbol", e.key)
			continue
		}
		u, ok := l.unwrap(e.value, path)
		if !ok {
			continue
		}
		seq, isSeq := u.(*ast.SequenceNode)
		if !isSeq {
			l.errorf(u, path, "want a list of {date: YYYY-MM-DD, ratio: N}, got %s", describe(u))
			continue
		}
		seen := map[string]int{}
		var list []Split
		for i, item := range seq.Values {
			ipath := fmt.Sprintf("%s[%d]", path, i)
			fields, ok := l.mapping(item, ipath)
			if !ok {
				continue
			}
			var sp Split
			var haveDate, haveRatio, good = false, false, true
			for _, f := range fields {
				fpath := join(ipath, f.key)
				switch f.key {
				case "date":
					haveDate = true
					s, ok := l.str(f.value, fpath)
					if !ok {
						good = false
						continue
					}
					d, err := ParseSplitDate(s)
					if err != nil {
						l.errorf(f.value, fpath, "%v", err)
						good = false
						continue
					}
					if first, dup := seen[s]; dup {
						l.errorf(f.value, fpath, "split on %s listed twice (first at line %d)", s, first)
						good = false
						continue
					}
					seen[s] = lineOf(f.value)
					sp.Date = d
				case "ratio":
					haveRatio = true
					v, ok := l.integer(f.value, fpath, 2, 1000)
					if !ok {
						good = false
						continue
					}
					sp.Ratio = v
				default:
					l.errorf(f.node, fpath, "unknown key (want date, ratio)")
					good = false
				}
			}
			if !haveDate || !haveRatio {
				l.errorf(item, ipath, "a split needs both date (its first trading day) and ratio (N for an N-for-1 split)")
				good = false
			}
			if good {
				list = append(list, sp)
			}
		}
		out[e.key] = sortSplits(list)
	}
	return out
}
