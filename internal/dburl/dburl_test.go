package dburl

import (
	"slices"
	"strings"
	"testing"
)

func TestPostgresURLsAndPaths(t *testing.T) {
	for _, c := range []struct {
		target  string
		pg      bool
		secrets []string
	}{
		{"prices.db", false, nil},
		{"/var/lib/pricerig/postgres://x.db", false, nil},
		{"postgres://app:pw-123456@db.example:5432/prices", true, []string{"pw-123456"}},
		{"postgresql://app@db.example/prices?sslmode=require&password=pw-654321", true, []string{"pw-654321"}},
		{"postgres://app@db.example/prices", true, nil},
	} {
		if got := IsPostgres(c.target); got != c.pg {
			t.Errorf("IsPostgres(%q) = %v", c.target, got)
		}
		if got := Secrets(c.target); !slices.Equal(got, c.secrets) {
			t.Errorf("Secrets(%q) = %q, want %q", c.target, got, c.secrets)
		}
		shown := Shown(c.target)
		for _, s := range c.secrets {
			if strings.Contains(shown, s) {
				t.Errorf("Shown(%q) = %q keeps the password", c.target, shown)
			}
		}
		if !c.pg && shown != c.target {
			t.Errorf("Shown(%q) = %q: a path is shown as is", c.target, shown)
		}
		if c.pg && (!strings.Contains(shown, "db.example") || !strings.HasPrefix(shown, c.target[:strings.Index(c.target, "://")+3]+"app")) {
			t.Errorf("Shown(%q) = %q lost the host", c.target, shown)
		}
	}
}
