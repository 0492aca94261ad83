package history

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// Stores opened at once on a new file (a new database) — each its own connections, as separate
// processes are — all open: one applies the migrations, the others wait for its lock and find
// the schema.
func TestOpenRacesOnANewFile(t *testing.T) { eachBackend(t, testOpenRacesOnANewFile) }

func testOpenRacesOnANewFile(t *testing.T, be storeBackend) {
	path := be.target(t, "prices.db")
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
			if _, err := s.BeginRun(context.Background(), unix(int64(i)), "{}"); err != nil {
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

// On PostgreSQL the schema is the one the migrations make, recorded in schema_migrations and
// pricerig_schema; opening again applies nothing twice, and a database of a newer schema is
// refused rather than misread.
func TestPostgresStoreSchemaAndMigrations(t *testing.T) {
	url := postgresStore.target(t, "")
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Postgres() {
		t.Fatalf("%s opened as SQLite", s.Path())
	}
	if v, err := s.Version(context.Background()); err != nil || v != SchemaVersion {
		t.Fatalf("version %d, %v", v, err)
	}
	s.Close()
	s, err = Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(migrations) {
		t.Errorf("%d migrations recorded, %v", n, err)
	}
	if _, err := s.DB().Exec(`UPDATE pricerig_schema SET version = 99 WHERE component = 'history'`); err != nil {
		t.Fatal(err)
	}
	if s2, err := Open(url); err == nil {
		s2.Close()
		t.Error("a store of schema 99 opened")
	} else if !strings.Contains(err.Error(), "newer") {
		t.Errorf("refused with %v", err)
	}
}

// A PostgreSQL URL's password appears in no error of the store, nor in its Path.
func TestPostgresStorePasswordIsRedacted(t *testing.T) {
	url := postgresStore.target(t, "")
	secret := "s3cret-Pw0rd"
	withPassword := strings.Replace(url, "postgres://postgres@", "postgres://postgres:"+secret+"@", 1)
	if withPassword == url {
		t.Fatalf("cannot put a password into %s", url)
	}
	s, err := Open(withPassword) // trust authentication: the password is not checked
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if strings.Contains(s.Path(), secret) || !strings.HasPrefix(s.Path(), "postgres:///") || !strings.Contains(s.Path(), "?host=") {
		t.Errorf("Path() = %s", s.Path())
	}
	for _, bad := range []string{
		"postgres://postgres:" + secret + "@127.0.0.1:1/nothing?sslmode=disable&connect_timeout=2",
		"postgres://postgres@127.0.0.1:1/nothing?sslmode=disable&connect_timeout=2&password=" + secret,
	} {
		_, err := Open(bad)
		if err == nil {
			t.Fatalf("%s opened", bad)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}
