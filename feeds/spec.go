package feeds

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/pricerig/pricerig/files"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Spec is a loaded and validated sources.yaml: the job-2 spec as the rig reads it.
type Spec struct {
	File    string // the name problems are reported under
	Version int
	SpecURI string
	Job     Job
	Rules   Rules
	Sources []SourceSpec // in file order, skipped ones included (see SourceSpec.Missing)
	Feeds   []Feed       // in file order
	Splits  Splits
	// RefusalAnswer is refusal_answer: the answer (price × 10^scale) every rig on the spec
	// commits for a task the spec refuses — one whose input or minute no rig can price, whatever
	// its sources (see rig.InputRules). nil when the spec has no such rule: such tasks are skipped.
	RefusalAnswer *numeric.Scaled
	// Networks are the chains the spec names, by network name (robinhood, robinhood-testnet,
	// devnet): where the AgentRig contract is deployed on each.
	Networks map[string]Network
	// Warnings are problems that do not stop the spec from loading, such as a source whose key
	// variable is unset (that source is skipped).
	Warnings []Problem
}

// Network is a chain's entry under networks: in the spec.
type Network struct {
	Contract string // the AgentRig address, 0x and 40 hex digits
	Line     int
}

var addressPattern = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// Job is the on-chain job the spec answers.
type Job struct {
	ID           uint32
	Scale        int // decimal places of an answer; job 2 uses numeric.Scale
	ToleranceBps uint32
	Quorum       int
}

// SourceSpec is one entry of the sources: block, resolved: secrets read from the environment (or
// the load overrides), base URL overridden where asked.
type SourceSpec struct {
	sources.Settings
	KeyEnv, SecretEnv string
	Line              int
	// Missing says why the source is skipped ("ALPACA_API_KEY_ID is not set"); "" when usable.
	Missing string
	// Coverage is what the source's type reported when the loader built it to check its options.
	Coverage sources.Coverage
	// NeedsKey and NeedsSecret repeat the type's Factory, for reports.
	NeedsKey, NeedsSecret bool
}

// Usable reports whether the source can be asked: its keys are there.
func (s SourceSpec) Usable() bool { return s.Missing == "" }

// Feed maps one symbol to each source's own name for it.
type Feed struct {
	Symbol  string
	Line    int
	Sources []FeedSource // in file order
}

// FeedSource is one source of a feed and the provider's symbol there (Equity.US.NVDA/USD for
// Pyth, NVDA for most).
type FeedSource struct {
	Source string
	Symbol string
}

// ProviderSymbol returns the provider symbol a source uses for the feed.
func (f Feed) ProviderSymbol(source string) (string, bool) {
	for _, fs := range f.Sources {
		if fs.Source == source {
			return fs.Symbol, true
		}
	}
	return "", false
}

// Feed returns the feed of a symbol (exact match: job inputs name symbols exactly).
func (s *Spec) Feed(symbol string) (Feed, bool) {
	for _, f := range s.Feeds {
		if f.Symbol == symbol {
			return f, true
		}
	}
	return Feed{}, false
}

// Symbols lists the feeds' symbols in file order.
func (s *Spec) Symbols() []string {
	out := make([]string, len(s.Feeds))
	for i, f := range s.Feeds {
		out[i] = f.Symbol
	}
	return out
}

// Source returns a source by name.
func (s *Spec) Source(name string) (SourceSpec, bool) {
	for _, src := range s.Sources {
		if src.Name == name {
			return src, true
		}
	}
	return SourceSpec{}, false
}

// LoadOptions are what the host decides about loading: where secrets come from and where the
// sources point.
type LoadOptions struct {
	// File names the file in problems; default "sources.yaml".
	File string
	// Getenv reads the variables named by key_env and secret_env; nil means os.Getenv.
	Getenv func(string) string
	// BaseURLs overrides base_url by source name or by type (a name wins over a type).
	BaseURLs map[string]string
	// Sim points every source at a provider simulator (see SimTarget).
	Sim *SimTarget
}

// SimTarget points every source at a simulator: base_url becomes Root + "/" + the source's type,
// and every key and secret the source has or needs becomes Key and Secret. That is how
// `pricerig --sim URL`, devnet and tests reach sources/sim.
type SimTarget struct {
	Root        string
	Key, Secret string
}

// DefaultFile is the name problems are reported under when LoadOptions.File is empty.
const DefaultFile = "sources.yaml"

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

type loader struct {
	file  string
	opts  LoadOptions
	errs  []Problem
	warns []Problem
}

func lineOf(n ast.Node) int {
	if n == nil {
		return 0
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Line
}

func (l *loader) errorf(n ast.Node, key, format string, args ...any) {
	l.errs = append(l.errs, Problem{File: l.file, Line: lineOf(n), Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (l *loader) warnf(n ast.Node, key, format string, args ...any) {
	l.warns = append(l.warns, Problem{File: l.file, Line: lineOf(n), Key: key, Msg: fmt.Sprintf(format, args...)})
}

// entry is one key of a YAML mapping.
type entry struct {
	key   string
	node  ast.Node // the key, for its line
	value ast.Node // never nil: a missing value is a NullNode
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// unwrap looks through anchors and tags; aliases and merge keys are refused (a spec is short,
// and copies made by aliases would hide which line a value came from).
func (l *loader) unwrap(n ast.Node, path string) (ast.Node, bool) {
	for range 16 {
		switch v := n.(type) {
		case nil:
			return nil, false
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AliasNode:
			l.errorf(v, path, "YAML aliases (*name) are not supported in a spec; write the value out")
			return nil, false
		default:
			return n, n != nil
		}
	}
	l.errorf(n, path, "too many nested anchors or tags")
	return nil, false
}

// mapping reads a mapping node's entries, reporting duplicate and non-scalar keys. A null value
// (an empty block) reads as an empty mapping.
func (l *loader) mapping(n ast.Node, path string) ([]entry, bool) {
	n, ok := l.unwrap(n, path)
	if !ok {
		return nil, false
	}
	var values []*ast.MappingValueNode
	switch v := n.(type) {
	case *ast.NullNode:
		return nil, true
	case *ast.MappingNode:
		values = v.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{v}
	default:
		l.errorf(n, path, "want a mapping of keys, got %s", describe(n))
		return nil, false
	}
	seen := map[string]int{}
	out := make([]entry, 0, len(values))
	for _, mv := range values {
		if mv == nil || mv.Key == nil {
			continue
		}
		if mv.Key.IsMergeKey() {
			l.errorf(mv.Key, path, "YAML merge keys (<<) are not supported in a spec; write the keys out")
			continue
		}
		keyNode, ok := l.unwrap(mv.Key, path)
		if !ok {
			continue
		}
		var key string
		switch k := keyNode.(type) {
		case *ast.StringNode:
			key = k.Value
		case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
			key = k.GetToken().Value
		default:
			l.errorf(keyNode, path, "a key must be a plain name, got %s", describe(keyNode))
			continue
		}
		if first, dup := seen[key]; dup {
			l.errorf(keyNode, join(path, key), "duplicate key (first at line %d)", first)
			continue
		}
		seen[key] = lineOf(keyNode)
		value := mv.Value
		if value == nil {
			value = &ast.NullNode{BaseNode: &ast.BaseNode{}, Token: keyNode.GetToken()}
		}
		out = append(out, entry{key: key, node: keyNode, value: value})
	}
	return out, true
}

func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.NullNode:
		return "nothing"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%q", n.GetToken().Value)
}

// scalar reads a scalar value as text. Strings keep their unquoted value; numbers and booleans
// their literal text, so "0x10" is not silently read as 16.
func (l *loader) scalar(n ast.Node, path string) (string, bool) {
	n, ok := l.unwrap(n, path)
	if !ok {
		return "", false
	}
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return strings.TrimRight(v.Value.Value, "\n"), true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return v.GetToken().Value, true
	case *ast.NullNode:
		l.errorf(n, path, "missing value")
		return "", false
	}
	l.errorf(n, path, "want a single value, got %s", describe(n))
	return "", false
}

func (l *loader) str(n ast.Node, path string) (string, bool) {
	s, ok := l.scalar(n, path)
	if ok && strings.TrimSpace(s) == "" {
		l.errorf(n, path, "empty value")
		return "", false
	}
	return strings.TrimSpace(s), ok
}

func (l *loader) integer(n ast.Node, path string, min, max int64) (int64, bool) {
	s, ok := l.scalar(n, path)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		l.errorf(n, path, "%q is not a decimal integer", s)
		return 0, false
	}
	if v < min || v > max {
		l.errorf(n, path, "%d is out of range %d..%d", v, min, max)
		return 0, false
	}
	return v, true
}

func (l *loader) duration(n ast.Node, path string, max time.Duration) (time.Duration, bool) {
	s, ok := l.scalar(n, path)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		l.errorf(n, path, "duration %q: want a Go duration like 90s, 30m or 96h", s)
		return 0, false
	}
	if d <= 0 || d > max {
		l.errorf(n, path, "duration %s: must be more than 0 and at most %s", d, max)
		return 0, false
	}
	return d, true
}

// list reads a list of scalars; a single scalar reads as a list of one.
func (l *loader) list(n ast.Node, path string) ([]string, bool) {
	u, ok := l.unwrap(n, path)
	if !ok {
		return nil, false
	}
	seq, isSeq := u.(*ast.SequenceNode)
	if !isSeq {
		s, ok := l.scalar(u, path)
		if !ok {
			return nil, false
		}
		return []string{s}, true
	}
	out := make([]string, 0, len(seq.Values))
	good := true
	for i, v := range seq.Values {
		s, ok := l.scalar(v, fmt.Sprintf("%s[%d]", path, i))
		good = good && ok
		out = append(out, strings.TrimSpace(s))
	}
	return out, good
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

// DefaultJob is job 2 as published: NUMERIC, 0.50 %, quorum 3, answers scaled by 10^8.
func DefaultJob() Job {
	return Job{ID: 2, Scale: numeric.Scale, ToleranceBps: 50, Quorum: 3}
}

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
			default:
				l.errorf(f.node, join(path, f.key), "unknown key (want contract)")
			}
		}
		out[e.key] = nw
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
		default:
			l.errorf(e.node, path, "unknown key (want id, scale, tolerance_bps, quorum)")
		}
	}
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
var commonSourceKeys = []string{"type", "base_url", "key_env", "secret_env", "rate", "timeout", "retries"}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	envRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	symbolRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:=^-]{0,63}$`)
)

func (l *loader) sources(n ast.Node, declared map[string]bool) []SourceSpec {
	entries, ok := l.mapping(n, "sources")
	if ok && len(entries) == 0 {
		l.errorf(n, "sources", "no sources")
	}
	var out []SourceSpec
	for _, e := range entries {
		declared[e.key] = true
		if src, ok := l.source(e); ok {
			out = append(out, src)
		}
	}
	return out
}

func (l *loader) source(e entry) (SourceSpec, bool) {
	path := join("sources", e.key)
	if !nameRE.MatchString(e.key) {
		l.errorf(e.node, path, "a source name is a letter then letters, digits, - or _ (at most 64)")
		return SourceSpec{}, false
	}
	entries, ok := l.mapping(e.value, path)
	if !ok {
		return SourceSpec{}, false
	}
	src := SourceSpec{Settings: sources.Settings{Name: e.key, Options: map[string]string{}}, Line: lineOf(e.node)}
	values := map[string]entry{}
	for _, kv := range entries {
		values[kv.key] = kv
	}
	typeEntry, hasType := values["type"]
	if !hasType {
		l.errorf(e.node, join(path, "type"), "missing (one of %s)", strings.Join(sources.Types(), ", "))
		return SourceSpec{}, false
	}
	typ, ok := l.str(typeEntry.value, join(path, "type"))
	if !ok {
		return SourceSpec{}, false
	}
	factory, known := sources.Lookup(typ)
	if !known {
		l.errorf(typeEntry.value, join(path, "type"), "unknown source type %q (known: %s)", typ, strings.Join(sources.Types(), ", "))
		return SourceSpec{}, false
	}
	src.Type = typ
	src.NeedsKey, src.NeedsSecret = factory.NeedsKey, factory.NeedsSecret
	good := true
	optionLines := map[string]ast.Node{}
	for _, kv := range entries {
		kpath := join(path, kv.key)
		switch kv.key {
		case "type":
		case "base_url":
			s, ok := l.str(kv.value, kpath)
			if ok {
				if err := checkBaseURL(s); err != nil {
					l.errorf(kv.value, kpath, "%v", err)
					ok = false
				}
			}
			good = good && ok
			src.BaseURL = s
		case "key_env", "secret_env":
			s, ok := l.str(kv.value, kpath)
			if ok && !envRE.MatchString(s) {
				l.errorf(kv.value, kpath, "%q is not an environment variable name (the key itself never goes in the file)", s)
				ok = false
			}
			good = good && ok
			if kv.key == "key_env" {
				src.KeyEnv = s
			} else {
				src.SecretEnv = s
			}
		case "rate":
			s, ok := l.scalar(kv.value, kpath)
			if ok {
				r, err := sources.ParseRate(s)
				if err != nil {
					l.errorf(kv.value, kpath, "%v", err)
					ok = false
				}
				src.Rate = r
			}
			good = good && ok
		case "timeout":
			d, ok := l.duration(kv.value, kpath, 10*time.Minute)
			good = good && ok
			src.Timeout = d
		case "retries":
			v, ok := l.integer(kv.value, kpath, 0, 10)
			good = good && ok
			src.Retries = int(v)
			if v == 0 {
				src.Retries = sources.NoRetries // written 0 means none; absent keeps the default
			}
		default:
			if _, isOption := factory.Options[kv.key]; !isOption {
				l.errorf(kv.node, kpath, "unknown key for type %s (want %s)", typ, strings.Join(allowedKeys(factory), ", "))
				good = false
				continue
			}
			vals, ok := l.list(kv.value, kpath)
			good = good && ok
			src.Options[kv.key] = strings.Join(vals, ",")
			optionLines[kv.key] = kv.value
		}
	}
	for _, req := range factory.Required {
		if _, set := src.Options[req]; !set {
			l.errorf(e.node, join(path, req), "missing (type %s requires it: %s)", typ, factory.Options[req])
			good = false
		}
	}
	if factory.NeedsKey && src.KeyEnv == "" {
		l.errorf(e.node, join(path, "key_env"), "missing: type %s needs a key; name the environment variable that holds it", typ)
		good = false
	}
	if factory.NeedsSecret && src.SecretEnv == "" {
		l.errorf(e.node, join(path, "secret_env"), "missing: type %s needs a secret; name the environment variable that holds it", typ)
		good = false
	}
	if src.Rate.IsZero() {
		src.Rate = factory.DefaultRate
	}
	l.resolve(&src)
	if src.BaseURL == "" {
		l.errorf(e.node, join(path, "base_url"), "missing")
		good = false
	}
	if !good {
		return SourceSpec{}, false
	}
	// Build the source once, with no network, to let its type check its options and say what it
	// covers. Placeholders stand in for unset secrets: the built source is dropped here.
	trial := src.Settings
	trial.Options = maps(src.Options)
	if src.Missing != "" {
		trial.Key, trial.Secret = "unset", "unset"
	}
	built, err := factory.New(trial, sources.Deps{})
	if err != nil {
		at, key := e.node, path
		msg := err.Error()
		var oe *sources.OptionError
		if errors.As(err, &oe) {
			if node, ok := optionLines[oe.Key]; ok {
				at, key, msg = node, join(path, oe.Key), oe.Msg // the location names the key
			}
		}
		l.errorf(at, key, "%s", msg)
		return SourceSpec{}, false
	}
	src.Coverage = built.Coverage()
	if src.Missing != "" {
		l.warnf(e.node, path, "%s; the source is skipped", src.Missing)
	}
	return src, true
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// resolve applies the overrides and reads the secrets.
func (l *loader) resolve(src *SourceSpec) {
	if u, ok := l.opts.BaseURLs[src.Type]; ok {
		src.BaseURL = u
	}
	if u, ok := l.opts.BaseURLs[src.Name]; ok {
		src.BaseURL = u
	}
	if sim := l.opts.Sim; sim != nil {
		src.BaseURL = strings.TrimRight(sim.Root, "/") + "/" + src.Type
		if src.KeyEnv != "" || src.NeedsKey {
			src.Key = sim.Key
		}
		if src.SecretEnv != "" || src.NeedsSecret {
			src.Secret = sim.Secret
		}
		return
	}
	var missing []string
	if src.KeyEnv != "" {
		src.Key = l.opts.Getenv(src.KeyEnv)
		if src.Key == "" {
			missing = append(missing, src.KeyEnv)
		}
	}
	if src.SecretEnv != "" {
		src.Secret = l.opts.Getenv(src.SecretEnv)
		if src.Secret == "" {
			missing = append(missing, src.SecretEnv)
		}
	}
	switch len(missing) {
	case 1:
		src.Missing = missing[0] + " is not set"
	case 2:
		src.Missing = missing[0] + " and " + missing[1] + " are not set"
	}
}

func allowedKeys(f sources.Factory) []string {
	keys := slices.Clone(commonSourceKeys)
	opts := make([]string, 0, len(f.Options))
	for k := range f.Options {
		opts = append(opts, k)
	}
	sort.Strings(opts)
	return append(keys, opts...)
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("base_url %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base_url %q: want an http:// or https:// URL", s)
	}
	if u.User != nil {
		return fmt.Errorf("base_url %q: credentials do not go in a URL; use key_env", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("base_url %q: no query or fragment; keys come from key_env", s)
	}
	return nil
}

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
