// Package redact keeps secrets out of everything pricerig writes: errors, log lines, JSON fields
// and stored rows. It is a leaf package (it imports only the standard library) so that every
// layer, from sources up to cmd, can use the same rule without breaking the one-way dependency
// order.
//
// The rule has three parts, applied by String and With:
//
//   - every secret the process knows (Register) is replaced by REDACTED, as is and
//     query-escaped;
//   - the value of any secret-looking query parameter (apiKey=, token=, key=, secret=,
//     password=, …) is replaced, whatever it is;
//   - a secret cut short by a clip (text ending in "…" that ends with the start of a secret)
//     loses that start too, so a cut made before redaction still shows nothing of the secret.
//
// Redact first, then cut: Clip is the only cut in the sources layer, and callers apply it to
// text that is already redacted.
//
// URL and URLSecrets do the same for a URL handed on the command line (a JSON-RPC endpoint
// such as https://host/v3/KEY or https://user:pass@host), so `rig` and `audit` never print one.
package redact

import (
	"bytes"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Mark replaces every secret.
const Mark = "REDACTED"

// Ellipsis ends every clipped text; String treats what stands before it as possibly cut.
const Ellipsis = "…"

// MinLen is the shortest secret Register keeps: a process-wide rule applied to every line
// written must not turn a one-letter key into a hole in every price. Secrets a client holds
// itself are redacted from its own errors whatever their length (With).
const MinLen = 6

var (
	mu       sync.RWMutex
	known    = map[string]bool{}
	registry []string // longest first, with their query-escaped forms
)

// Register adds secrets the whole process must never write (the keys of every configured
// source, the credentials of an RPC URL). Empty and short ones (under MinLen) are ignored.
func Register(secrets ...string) {
	mu.Lock()
	defer mu.Unlock()
	// A new slice, never the old one changed in place: a redaction running meanwhile reads the
	// registry it was handed (registered) without the lock.
	next := slices.Clone(registry)
	for _, s := range secrets {
		for _, v := range forms(s) {
			if len(v) < MinLen || known[v] {
				continue
			}
			known[v] = true
			next = append(next, v)
		}
	}
	if len(next) > len(registry) {
		sortLongestFirst(next)
		registry = next
	}
}

// Registered reports whether a secret is registered (for tests).
func Registered(secret string) bool {
	mu.RLock()
	defer mu.RUnlock()
	return known[secret]
}

func registered() []string {
	mu.RLock()
	defer mu.RUnlock()
	return registry
}

// forms are a secret as is and as it appears in a URL query.
func forms(s string) []string {
	if s == "" {
		return nil
	}
	out := []string{s}
	if esc := url.QueryEscape(s); esc != s {
		out = append(out, esc)
	}
	if esc := url.PathEscape(s); esc != s && esc != out[len(out)-1] {
		out = append(out, esc)
	}
	return out
}

func sortLongestFirst(v []string) {
	// longest first, so a secret that contains another is replaced whole
	slices.SortStableFunc(v, func(a, b string) int { return len(b) - len(a) })
}

// Secrets prepares a list of secrets for With: every form of each, longest first.
func Secrets(secrets ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range secrets {
		for _, v := range forms(s) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sortLongestFirst(out)
	return out
}

var secretParam = regexp.MustCompile(`(?i)((?:api_?key|apikey|token|access_token|key|secret|password)=)[^&\s"']+`)

// Params removes the values of secret-looking query parameters from a string, whatever they are.
// A value that is already Mark (a registered secret taken out) is left with the punctuation that
// follows it, the rest of the message (an unknown value's end cannot be told from it, so there
// the rest goes with the value).
func Params(s string) string {
	return secretParam.ReplaceAllStringFunc(s, func(m string) string {
		name := m[:strings.IndexByte(m, '=')+1]
		if rest, ok := strings.CutPrefix(m[len(name):], Mark); ok && !startsWithWordChar(rest) {
			return m
		}
		return name + Mark
	})
}

func startsWithWordChar(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-')
}

// String removes from s every registered secret, every secret-looking query parameter's value
// and the start of a secret cut short before an ellipsis.
func String(s string) string { return With(s, nil) }

// Error is err's text, redacted as String does: for an error shown or kept anywhere the
// command's redacting writers do not stand in front of (a served page, /readyz, a file, a
// database row).
func Error(err error) string { return String(err.Error()) }

// With is String with more secrets: secrets prepared by Secrets (a client's own key, of any
// length), redacted before the registered ones.
func With(s string, secrets []string) string {
	reg := registered()
	if len(secrets) == 0 && len(reg) == 0 {
		return Params(s)
	}
	for _, list := range [][]string{secrets, reg} {
		for _, v := range list {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, Mark)
			}
		}
	}
	s = Params(s)
	if strings.Contains(s, Ellipsis) {
		s = cutStarts(s, secrets, reg)
	}
	return s
}

// cutStarts redacts, before each ellipsis, the longest start of a secret that the text ends with
// there: what a clip made before redaction leaves of a secret it cut through.
func cutStarts(s string, lists ...[]string) string {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, Ellipsis)
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		head := rest[:i]
		best := 0
		for _, list := range lists {
			for _, v := range list {
				for k := min(len(v)-1, len(head)); k > best; k-- {
					if strings.HasSuffix(head, v[:k]) {
						best = k
						break
					}
				}
			}
		}
		if best > 0 {
			head = head[:len(head)-best] + Mark
		}
		b.WriteString(head)
		b.WriteString(Ellipsis)
		rest = rest[i+len(Ellipsis):]
	}
}

// Clip cuts s to at most n bytes (on a character boundary) and marks the cut with an ellipsis.
// Clip text that is already redacted: a secret cut in half cannot be found whole afterwards.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + Ellipsis
}

// URLSecrets are the credentials a URL carries: its user name and password, the values of its
// secret-looking query parameters, and path segments that look like keys (Infura's /v3/KEY,
// Alchemy's /v2/KEY, a QuickNode token: 16 or more letters, digits, '-' or '_' holding a
// digit). Register them before the URL can reach any output.
func URLSecrets(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		out = append(out, u.User.Username())
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	for k, vs := range u.Query() {
		if secretParam.MatchString(k + "=x") {
			out = append(out, vs...)
		}
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if keyLike(seg) {
			out = append(out, seg)
		}
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

func keyLike(seg string) bool {
	if len(seg) < 16 {
		return false
	}
	digit := false
	for _, r := range seg {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '-', r == '_':
		default:
			return false
		}
	}
	return digit
}

// URL is raw with its credentials (URLSecrets) replaced by REDACTED, for printing: a URL that
// does not parse is redacted as text.
func URL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return String(raw)
	}
	secrets := Secrets(URLSecrets(raw)...)
	if u.User != nil {
		u.User = url.User(Mark)
	}
	return With(u.String(), secrets)
}

// Writer redacts every registered secret from each write to w, for a command's stdout and
// stderr. Each Write is redacted on its own: log handlers, fmt and JSON encoders write a line or
// a document at a time.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

// Underlying is the writer a Writer writes to (w itself for any other writer): what to ask
// whether output goes to a terminal.
func Underlying(w io.Writer) io.Writer {
	if r, ok := w.(*writer); ok {
		return r.w
	}
	return w
}

func (r *writer) Write(p []byte) (int, error) {
	reg := registered()
	hit := bytes.Contains(p, []byte(Ellipsis))
	for _, v := range reg {
		if hit {
			break
		}
		hit = bytes.Contains(p, []byte(v))
	}
	// secretParam needs an '=': a write without one (a CSV row, a price table) skips the
	// regular expression, which cost most of a large export's CPU when run on every row.
	if !hit && (bytes.IndexByte(p, '=') < 0 || !secretParam.Match(p)) {
		_, err := r.w.Write(p)
		return len(p), err
	}
	_, err := io.WriteString(r.w, String(string(p)))
	return len(p), err
}
