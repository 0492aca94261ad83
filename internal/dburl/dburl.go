// Package dburl tells a PostgreSQL URL from a SQLite path and keeps its password out of
// output. The rig's journal (`--journal`) and the price history (`--db`) both take either, so the
// rule lives below both of them.
//
// A URL is taken apart as text, never with url.Parse: the URLs an operator types are not always
// ones Go can parse (a raw '%' in a password, a typo in the port, an unencoded ':', '/', '@' or
// space in a password), and a password that is not found cannot be kept out of an error. The
// userinfo ends at the last '@', so whatever the password holds it is never read as the host.
package dburl

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// IsPostgres reports whether a journal or store target names a PostgreSQL database
// (postgres:// or postgresql://); anything else is the path of a SQLite file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// parts is a PostgreSQL URL taken apart as text: scheme://userinfo@host/database?query.
type parts struct {
	scheme, userinfo, host, database, query string
}

// passwordParam is a password= parameter, found before the URL is taken apart: its value may
// hold an '@' that would otherwise end the userinfo there.
var passwordParam = regexp.MustCompile(`(?i)[?&]password=[^&]*`)

func split(target string) parts {
	scheme, rest, _ := strings.Cut(passwordParam.ReplaceAllString(target, ""), "://")
	p := parts{scheme: scheme}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		p.userinfo, rest = rest[:at], rest[at+1:]
	}
	rest, p.query, _ = strings.Cut(rest, "?")
	p.host, p.database, _ = strings.Cut(rest, "/")
	return p
}

// keyValueKey is a libpq connection-string setting (host=… dbname=… password=…): the other way
// PostgreSQL clients name a database, which pricerig does not take, and whose password must not
// show in the error that says so.
var keyValueKey = regexp.MustCompile(`(?:^|\s)(?:host|hostaddr|dbname|user|password|port|sslmode)\s*=`)

// IsKeyValue reports whether a target is a libpq key=value connection string rather than a
// path: pricerig refuses it (a SQLite file of that name would carry its password).
func IsKeyValue(target string) bool {
	return !IsPostgres(target) && keyValueKey.MatchString(target)
}

// kvSetting is one key=value setting; a value is a word or a single-quoted string with \' and \\
// escapes (libpq's rules).
var kvSetting = regexp.MustCompile(`(\w+)\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)`)

// Shown returns a target fit for output: a URL as its scheme, host and database only (no user,
// no password, no parameters), so an operator can tell which database is meant and nothing in
// it can be a credential; a key=value string as its host and dbname; a path as is.
func Shown(target string) string {
	switch {
	case IsPostgres(target):
		p := split(target)
		shown := p.scheme + "://" + p.host + "/" + p.database
		if p.host == "" {
			// the host given as a parameter (a socket directory, libpq's host=)
			for _, kv := range strings.Split(p.query, "&") {
				if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "host") {
					shown += "?host=" + v
					break
				}
			}
		}
		return shown
	case IsKeyValue(target):
		var kept []string
		for _, m := range kvSetting.FindAllStringSubmatch(target, -1) {
			if k := strings.ToLower(m[1]); k == "host" || k == "port" || k == "dbname" {
				kept = append(kept, m[0])
			}
		}
		return strings.Join(kept, " ")
	}
	return target
}

// Secrets returns the password of a PostgreSQL URL (user:password@, a password= parameter) or of
// a key=value string, as written and decoded, for redact.Register: only the password, since the
// user name is not secret and is often a common word that would then vanish from every line. A
// path has none.
func Secrets(target string) []string {
	var raw []string
	switch {
	case IsPostgres(target):
		p := split(target)
		if _, pw, ok := strings.Cut(p.userinfo, ":"); ok {
			raw = append(raw, pw)
		}
		for _, m := range passwordParam.FindAllString(target, -1) {
			raw = append(raw, m[len("?password="):])
		}
	case IsKeyValue(target):
		for _, m := range kvSetting.FindAllStringSubmatch(target, -1) {
			if strings.EqualFold(m[1], "password") {
				v := m[2]
				raw = append(raw, v)
				if unq := strings.Trim(v, "'"); unq != v {
					raw = append(raw, strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(unq))
				}
			}
		}
	}
	var out []string
	for _, s := range raw {
		for _, v := range []string{s, unescaped(url.PathUnescape, s), unescaped(url.QueryUnescape, s)} {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// unescaped is s decoded, or "" when it does not decode.
func unescaped(decode func(string) (string, error), s string) string {
	d, err := decode(s)
	if err != nil {
		return ""
	}
	return d
}
