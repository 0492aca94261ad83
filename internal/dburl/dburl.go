// Package dburl tells a PostgreSQL URL from a SQLite path and keeps its password out of
// output. The rig's journal (`--journal`) and the price history (`--db`) both take either, so the
// rule lives below both of them.
package dburl

import (
	"net/url"
	"strings"

	"github.com/pricerig/pricerig/redact"
)

// IsPostgres reports whether a journal or store target names a PostgreSQL database
// (postgres:// or postgresql://); anything else is the path of a SQLite file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// Shown returns a target fit for output: a URL's password (also a password= parameter) is
// replaced by redact.Mark, and the user, host and database stay, so an operator can tell which
// database is meant; a path is returned as is.
func Shown(target string) string {
	if !IsPostgres(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return redact.URL(target) // unreadable: the general rule, which keeps the least
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), redact.Mark)
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", redact.Mark)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Secrets returns the password of a PostgreSQL URL, as user:password@ or as a password=
// parameter, for redact.Register: only the password, since the user name is not secret and is
// often a common word that would then vanish from every line. A path has none.
func Secrets(target string) []string {
	if !IsPostgres(target) {
		return nil
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	for _, p := range u.Query()["password"] {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
