package journal

import (
	"context"
	"testing"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/pgtest"
)

// The README lets the rig's journal and the price history share one PostgreSQL database, so
// their tables must not overlap: both once had a table named cursors, and whichever migrated
// second broke (the history's CREATE TABLE failed, or the journal's CREATE TABLE IF NOT EXISTS
// kept the history's columns and every cursor write failed). Both orders are tried.
func TestJournalAndHistoryShareOnePostgresDatabase(t *testing.T) {
	cluster := pgtest.Start(t) // rig has no TestMain to stop a shared one
	for _, journalFirst := range []bool{true, false} {
		name := map[bool]string{true: "journal first", false: "history first"}[journalFirst]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			url := cluster.NewDatabase(t)
			openStore := func() {
				s, err := history.Open(url)
				if err != nil {
					t.Fatalf("history store on the journal's database: %v", err)
				}
				s.Close()
			}
			if !journalFirst {
				openStore()
			}
			j := openPG(t, url)
			if err := j.SetCursor(ctx, "follower", 42); err != nil {
				t.Fatalf("journal cursor on the history's database: %v", err)
			}
			if journalFirst {
				openStore()
			}
			if got, err := j.Cursor(ctx, "follower"); err != nil || got != 42 {
				t.Fatalf("cursor %d %v, want 42", got, err)
			}
		})
	}
}
