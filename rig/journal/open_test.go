package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/pgtest"
)

// A reader of the journal opens only a journal that is there: a missing path, an empty file, and
// a PostgreSQL database that holds none (a new one, or one where only the price history lives)
// are refused with ErrNoJournal and made nothing of; once the rig made the journal, it opens.
func TestOpenExistingJournalMakesNothing(t *testing.T) {
	refused := func(target string) {
		t.Helper()
		j, err := OpenExistingJournal(target)
		if err == nil {
			j.Close()
			t.Fatalf("OpenExistingJournal(%s) opened a journal that was never made", target)
		}
		if !errors.Is(err, ErrNoJournal) || !strings.Contains(err.Error(), "no pricerig rig journal at") {
			t.Fatalf("OpenExistingJournal(%s): %v, want ErrNoJournal", target, err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		refused(filepath.Join(dir, "typo.db"))
		empty := filepath.Join(dir, "empty.db")
		if err := os.WriteFile(empty, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		refused(empty)
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
			t.Fatalf("the refused opens left %d entries (%v), want only the empty file", len(entries), err)
		}
		if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
			t.Fatalf("the empty file was written to (%v)", err)
		}
		opensOnceMade(t, empty)
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.Start(t).NewDatabase(t)
		refused(url)
		var tables int
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		countTables := func() int {
			t.Helper()
			if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil {
				t.Fatal(err)
			}
			return tables
		}
		if n := countTables(); n != 0 {
			t.Fatalf("the refused open made %d tables", n)
		}
		// the price history alone in the database: still no journal
		st, err := history.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		before := countTables()
		refused(url)
		if n := countTables(); n != before {
			t.Fatalf("the refused open made %d tables beside the history's %d", n-before, before)
		}
		opensOnceMade(t, url)
	})
}

// opensOnceMade makes the journal at target as the rig does, then opens it as a reader.
func opensOnceMade(t *testing.T, target string) {
	t.Helper()
	w, err := OpenJournal(target)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := OpenExistingJournal(target)
	if err != nil {
		t.Fatalf("OpenExistingJournal after the rig made the journal: %v", err)
	}
	r.Close()
}

// A journal of a newer schema than this pricerig's is refused, to the rig and to a reader.
func TestNewerJournalIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rig.db")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	want := fmt.Sprintf("schema version %d is newer than this pricerig (%d)", schemaVersion+1, schemaVersion)
	for name, open := range map[string]func(string) (*DBJournal, error){"OpenJournal": OpenJournal, "OpenExistingJournal": OpenExistingJournal} {
		j, err := open(path)
		if err == nil {
			j.Close()
			t.Fatalf("%s opened a journal of a newer schema", name)
		}
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
