package history

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestStoreSchemaAndMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir#with?odd", "p.db")
	if _, err := Open(path); err == nil {
		t.Error("a path with '?' opened")
	}
	path = filepath.Join(t.TempDir(), "dir#hash", "p.db")
	if err := mkdirAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Version(context.Background())
	if err != nil || v != SchemaVersion {
		t.Fatalf("version %d, %v", v, err)
	}
	var mode string
	if err := s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q, %v", mode, err)
	}
	s.Close()
	// opening again applies nothing twice
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(migrations) {
		t.Errorf("%d migrations recorded, %v", n, err)
	}
	// a store from a newer pricerig is refused, not misread
	if _, err := s.DB().Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path); err == nil {
		t.Error("a store of schema 99 opened")
	}
}

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }
