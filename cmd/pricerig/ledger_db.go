package main

import (
	"errors"
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
// a typo, not a cache), else a per-user cache store, or none with --no-cache.

// cacheFile is the per-user cache store's name in the user's cache directory
// ($XDG_CACHE_HOME/pricerig/, else ~/.cache/pricerig/ on Linux).
const cacheFile = "ledger.db"

// userCache says where the per-user cache store lives: cachePath, or errNoCache in the
// package's tests, which run many commands against simulators that must not share bars.
var userCache = cachePath

// errNoCache is userCache's word for "no per-user cache": openLedger opens none, silently.
var errNoCache = errors.New("no per-user cache")

// cachePath is where the per-user cache store lives.
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
