package history

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
)

func openStore(t *testing.T, name string) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ny(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, market.NewYork).UTC()
}
