package feeds

import (
	"fmt"
	"strings"
)

// Problem is one error or warning in sources.yaml, located by file, line and key path.
type Problem struct {
	File string
	Line int    // 1-based; 0 when the problem has no place in the file (an empty file)
	Key  string // dotted path of the key, like sources.alpaca.rate; "" for the whole file
	Msg  string
}

// String reads like a compiler message: "sources.yaml:14: sources.alpaca.rate: rate "200/mn": …".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Key != "" {
		b.WriteString(p.Key)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// LoadError is every error Load found in a file, in file order; nothing of the file is used.
type LoadError struct {
	Problems []Problem
}

func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}
