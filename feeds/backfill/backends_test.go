package backfill

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared() // the PostgreSQL cluster the store tests shared, if one started
	os.Exit(code)
}

// storeBackend is one of the store's databases, for tests that run on each.
type storeBackend string

const (
	sqliteStore   storeBackend = "sqlite"
	postgresStore storeBackend = "postgres"
)

// eachBackend runs a store test on SQLite, then on PostgreSQL (a throwaway cluster shared by
// the package's tests, a new database per store).
func eachBackend(t *testing.T, fn func(t *testing.T, be storeBackend)) {
	for _, be := range []storeBackend{sqliteStore, postgresStore} {
		t.Run(string(be), func(t *testing.T) { fn(t, be) })
	}
}

// target returns where a new, empty store of the backend lives: a file named name in a
// temporary directory, or the URL of a new database.
func (be storeBackend) target(t *testing.T, name string) string {
	t.Helper()
	if be == postgresStore {
		return pgtest.Shared(t).NewDatabase(t)
	}
	return filepath.Join(t.TempDir(), name)
}

// open opens a new, empty store of the backend, closed when the test ends.
func (be storeBackend) open(t *testing.T, name string) *history.Store {
	t.Helper()
	s, err := history.Open(be.target(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
