package feeds

// The loader's YAML readers: every value is read with its line, every problem is kept.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

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
