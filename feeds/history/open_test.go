package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pricerig/pricerig/internal/pgtest"
)

// A reader opens only a store that is there. A path that does not exist, an empty file, a file
// that is no database and a database that holds no store are refused with ErrNoStore and left as they were — no file, no
// -wal beside it, no table — and the same target opens once a writer made the store in it.
func TestOpenExistingMakesNothing(t *testing.T) { eachBackend(t, testOpenExistingMakesNothing) }

func testOpenExistingMakesNothing(t *testing.T, be storeBackend) {
	refused := func(target string) {
		t.Helper()
		s, err := OpenExisting(target)
		if err == nil {
			s.Close()
			t.Fatalf("OpenExisting(%s) opened a store that was never made", target)
		}
		if !errors.Is(err, ErrNoStore) || !strings.Contains(err.Error(), "no pricerig history store at") {
			t.Fatalf("OpenExisting(%s): %v, want ErrNoStore", target, err)
		}
	}
	var target string
	if be == sqliteStore {
		dir := t.TempDir()
		missing := filepath.Join(dir, "typo.db")
		refused(missing)
		target = filepath.Join(dir, "empty.db")
		if err := os.WriteFile(target, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		refused(target)
		junk := filepath.Join(dir, "notes.txt") // a file, but no database: a path that names the wrong file
		if err := os.WriteFile(junk, []byte("not a database\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		refused(junk)
		if names := dirNames(t, dir); !slices.Equal(names, []string{"empty.db", "notes.txt"}) {
			t.Fatalf("the refused opens left %v in the directory, want only the two files", names)
		}
		if b, err := os.ReadFile(junk); err != nil || string(b) != "not a database\n" {
			t.Fatalf("the file that is no database was written to: %q (%v)", b, err)
		}
		if st, err := os.Stat(target); err != nil || st.Size() != 0 {
			t.Fatalf("the empty file was written to: %v, %d bytes", err, st.Size())
		}
	} else {
		target = be.target(t, "")
		refused(target)
		if tables := pgtest.Tables(t, target); len(tables) != 0 {
			t.Fatalf("the refused open made tables %v", tables)
		}
	}
	w, err := Open(target) // the writer makes the store
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := OpenExisting(target)
	if err != nil {
		t.Fatalf("OpenExisting after the writer made the store: %v", err)
	}
	defer r.Close()
	if v, err := r.Version(context.Background()); err != nil || v != SchemaVersion {
		t.Fatalf("version %d (%v), want %d", v, err, SchemaVersion)
	}
}

// A store whose schema is newer than this pricerig's is refused, to a writer and to a reader,
// and left at its version.
func TestNewerSchemaIsRefused(t *testing.T) { eachBackend(t, testNewerSchemaIsRefused) }

func testNewerSchemaIsRefused(t *testing.T, be storeBackend) {
	target := be.target(t, "prices.db")
	s, err := Open(target)
	if err != nil {
		t.Fatal(err)
	}
	newer := SchemaVersion + 1
	stmt := fmt.Sprintf(`PRAGMA user_version = %d`, newer)
	if be == postgresStore {
		stmt = fmt.Sprintf(`UPDATE pricerig_schema SET version = %d WHERE component = 'history'`, newer)
	}
	if _, err := s.DB().Exec(stmt); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for name, open := range map[string]func(string) (*Store, error){"Open": Open, "OpenExisting": OpenExisting} {
		s, err := open(target)
		if err == nil {
			s.Close()
			t.Fatalf("%s opened a store of schema version %d", name, newer)
		}
		want := fmt.Sprintf("schema version %d is newer than this pricerig understands (%d)", newer, SchemaVersion)
		if !strings.Contains(err.Error(), want) || errors.Is(err, ErrNoStore) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if v := rawVersion(t, be, target); v != newer {
		t.Fatalf("the refused opens left the store at version %d, want %d", v, newer)
	}
	// the doctor's look reports it newer, and leaves it so
	in, err := Inspect(context.Background(), target)
	if err != nil || in.Version != newer || in.Newest != SchemaVersion || !in.Newer() || in.Writable != nil {
		t.Fatalf("Inspect: %+v, %v; want version %d newer than %d", in, err, newer, SchemaVersion)
	}
	if v := rawVersion(t, be, target); v != newer {
		t.Fatalf("Inspect left the store at version %d, want %d", v, newer)
	}
	if _, err := Inspect(context.Background(), be.target(t, "none.db")); !errors.Is(err, ErrNoStore) {
		t.Fatalf("Inspect of nothing: %v, want ErrNoStore", err)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// rawVersion reads a store's schema version without opening it as a store.
func rawVersion(t *testing.T, be storeBackend, target string) int {
	t.Helper()
	var v int
	if be == postgresStore {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if err := conn.QueryRow(ctx, `SELECT version FROM pricerig_schema WHERE component = 'history'`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	db, err := sql.Open("sqlite", target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
