package history

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
)

// Stores opened at once on a new file — each its own connections, as separate processes are —
// all open: one applies the migrations, the others wait for its lock and find the schema.
func TestOpenRacesOnANewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.db")
	const n = 6
	stores := make([]*Store, n)
	errs := make([]error, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			stores[i], errs[i] = Open(path)
		}()
	}
	start.Done()
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		defer stores[i].Close()
	}
	var applied int
	if err := stores[0].DB().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&applied); err != nil || applied != len(migrations) {
		t.Fatalf("schema_migrations holds %d rows (%v), want %d", applied, err, len(migrations))
	}
	// and every one of them writes, each waiting for the others' transactions
	var writes sync.WaitGroup
	for i, s := range stores {
		writes.Add(1)
		go func() {
			defer writes.Done()
			if _, err := s.beginRun(context.Background(), unix(int64(i)), "{}"); err != nil {
				t.Errorf("store %d: %v", i, err)
			}
		}()
	}
	writes.Wait()
	var runs int
	if err := stores[0].DB().QueryRow(`SELECT count(*) FROM runs`).Scan(&runs); err != nil || runs != n {
		t.Fatalf("%d runs recorded (%v), want %d", runs, err, n)
	}
}
