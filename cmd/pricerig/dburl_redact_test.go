package main

import (
	"strings"
	"testing"
)

// FuzzNoDatabasePasswordInOutput gives every command that takes --db or --journal a database URL
// of some shape around a password (issue 33: a URL Go cannot parse, a raw '%', an unencoded ':',
// '/', '@' or space, a password= parameter, libpq's key/value form) and checks that the password
// appears in nothing the command prints, error or --json. The databases cannot be reached, so
// every command fails where the URL is read or connected to.
func FuzzNoDatabasePasswordInOutput(f *testing.F) {
	for _, pw := range []string{"SuperSecretPw1", "Super%SecretPw", "Sup:er/Secret Pw", "p@ss@word-99", "pw?x=1#frag-7", "it's-a-secret"} {
		for shape := range uint8(6) {
			f.Add(pw, shape)
		}
	}
	spec := doctorSpec(f, "http://127.0.0.1:1", "yahoo")
	f.Fuzz(func(t *testing.T, pw string, shape uint8) {
		if len(pw) < 8 || strings.ContainsAny(pw, "&\x00\n\r") {
			t.Skip() // an '&' ends a query value; a command line holds no NUL or line break
		}
		target := func(pw string) string {
			switch shape % 6 {
			case 0: // the reproduction: a typo in the port
				return "postgres://pricerig:" + pw + "@db.internal:54x32/pricerig"
			case 1:
				return "postgresql://pricerig:" + pw + "@127.0.0.1:1/pricerig?sslmode=disable&connect_timeout=2"
			case 2:
				return "postgres://pricerig@127.0.0.1:1/pricerig?password=" + pw + "&sslmode=disable&connect_timeout=2"
			case 3:
				return "postgres://pricerig@db.internal:x/pricerig?sslmode=disable&password=" + pw
			case 4:
				return "host=127.0.0.1 port=1 password=" + strings.ReplaceAll(pw, " ", "_") + " dbname=pricerig"
			default:
				return "host=127.0.0.1 password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "' dbname=pricerig"
			}
		}
		commands := func(u string) [][]string {
			return [][]string{
				{"price", "--config", spec, "--no-wait", "--db", u, "NVDA", "2026-12-04T15:30Z"},
				{"price", "--config", spec, "--no-wait", "--db", u, "--json", "NVDA", "2026-12-04T15:30Z"},
				{"audit", "--config", spec, "--journal", u, "--json"},
				{"audit", "--config", spec, "--db", u},
				{"doctor", "--config", spec, "--json", "--db", u, "--journal", u},
				{"explain", "--config", spec, "--db", u, "NVDA", "2026-12-04T15:30Z"},
				{"explain", "--config", spec, "--journal", u, "--json", "--task", "1"},
				{"backfill", "export", "--db", u},
			}
		}
		secret := pw
		if shape%6 == 4 {
			secret = strings.ReplaceAll(pw, " ", "_")
		}
		other := commands(target("other-password"))
		for i, args := range commands(target(pw)) {
			code, out, stderr := runCLI(t, args...)
			if code == 0 {
				t.Errorf("%q: exit 0 with a database that cannot be reached", args)
			}
			_, otherOut, otherErr := runCLI(t, other[i]...)
			if strings.Contains(otherOut+otherErr, secret) {
				continue // the password is a word the command prints anyway
			}
			if strings.Contains(out+stderr, secret) {
				t.Errorf("%q shows the password %q:\n%s%s", args, secret, out, stderr)
			}
		}
	})
}
