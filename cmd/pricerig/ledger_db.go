package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/sources"
)

// The bar ledger of the commands that price (price, audit): every bar a source returns is kept
// in a history store, which they read first and fill with what they fetch, and which counts
// their requests against the sources' quotas. It is the store --db names, made if missing (the
// ledger is a cache they fill; a path whose directory does not exist is still refused: that is
// a typo, not a cache), else the per-user store, or none with --no-cache.
//
// The per-user store is the ONE default store of every command that reads or writes bars and
// answers (backfill, backfill export, price, explain, audit; doctor reads its quota counts): a
// backfill followed by price, explain or audit needs no --db, and no request is sent for what
// the backfill stored. It stays where the per-user bar cache has always been, so a cache an older
// pricerig filled is read as it is. With --journal, audit, explain and doctor read the rig's
// ledger beside the journal instead (ledgerBeside), the bars and evidence the rig answered from.

// cacheFile is the per-user cache store's name in the user's cache directory
// ($XDG_CACHE_HOME/pricerig/, else ~/.cache/pricerig/ on Linux).
const cacheFile = "ledger.db"

// userCache says where the per-user store lives: cachePath, or errNoCache in the
// package's tests, which run many commands against simulators that must not share bars.
var userCache = cachePath

// errNoCache is userCache's word for "no per-user cache": openLedger opens none, silently.
var errNoCache = errors.New("no per-user cache")

// cachePath is where the per-user store lives.
func cachePath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "pricerig", cacheFile), nil
}

// openLedger opens the store a pricing command keeps its bars in: db when given (made if
// missing), else the per-user cache (nil, with a warning, when it cannot be used: the cache
// saves requests, it never stops a command), or nil with noCache. A nil store means the
// command's reconciler keeps its bars in memory and its quota counts in the process.
func openLedger(db string, noCache bool, log *slog.Logger) (*history.Store, error) {
	if db != "" {
		registerDBSecrets(db)
		if !dburl.IsPostgres(db) {
			dir := filepath.Dir(db)
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return nil, badInput("--db %s: the directory %s does not exist: pricerig makes the store, never its directory", db, dir)
			}
		}
		fi, statErr := os.Stat(db)
		if statErr == nil && fi.IsDir() {
			return nil, badInput("--db %s is a directory", db)
		}
		st, err := history.Open(db)
		switch {
		case err == nil:
			return st, nil
		case dburl.IsPostgres(db):
			return nil, failed("--db: %v", err)
		case statErr == nil:
			// a file that is there and is no store (or a store of a newer pricerig)
			return nil, badInput("--db %s: %v", db, err)
		case !errors.Is(statErr, fs.ErrNotExist):
			return nil, badInput("--db %s: %v", db, statErr)
		}
		return nil, failed("--db: %v", err)
	}
	if noCache {
		return nil, nil
	}
	path, err := userCache()
	if errors.Is(err, errNoCache) {
		return nil, nil
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	var st *history.Store
	if err == nil {
		st, err = history.Open(path)
	}
	if err != nil {
		log.Warn("the bar cache cannot be used: asking the sources for everything", "error", err)
		return nil, nil
	}
	return st, nil
}

// oldDefaultStore is where backfill and backfill export kept their store before they shared
// the per-user one: ./prices.db, in the directory the command ran in.
const oldDefaultStore = "prices.db"

// defaultStore is the store a command reads or writes without --db: the per-user store, its
// directory made. A process that has none (no home directory) must be given --db.
func defaultStore() (string, error) {
	path, err := userCache()
	if err != nil {
		if errors.Is(err, errNoCache) {
			return "", badInput("--db: no per-user store here: give --db FILE (a SQLite file) or a postgres:// URL")
		}
		return "", badInput("--db: no per-user store (%v): give --db FILE (a SQLite file) or a postgres:// URL", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", failed("the per-user store %s: %v", path, err)
	}
	return path, nil
}

// noteOldDefault tells a command run without --db in a directory holding ./prices.db (the
// store backfill made there by default before the per-user store) that it is not read, and
// how to read it: nothing moves it, a user's history stays where it is.
func noteOldDefault(w io.Writer, cmd, using string) {
	if fi, err := os.Stat(oldDefaultStore); err != nil || !fi.Mode().IsRegular() {
		return
	}
	fmt.Fprintf(w, "pricerig %s: note: ./%s (the old default store) is not read without --db; this run uses %s (give --db %s for the old one)\n",
		cmd, oldDefaultStore, using, oldDefaultStore)
}

// ledgerDeps are a reconciler's dependencies with the store as its bar ledger and its sources'
// request budget (a nil store: neither, so each is the process's own).
func ledgerDeps(d feeds.Deps, st *history.Store) feeds.Deps {
	if st != nil {
		d.Ledger, d.Budget = st, st
	}
	return d
}

// budgetDeps are the sources' dependencies with the store as their request budget.
func budgetDeps(d sources.Deps, st *history.Store) sources.Deps {
	if st != nil {
		d.Budget = st
	}
	return d
}
