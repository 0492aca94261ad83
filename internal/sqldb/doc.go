// Package sqldb is the one SQL foundation of pricerig's two databases, the price history
// (feeds/history) and the rig's journal (rig/journal). Each of them is a SQLite file (one
// machine) or a PostgreSQL database (several machines, the history and the journal side by side
// in one database), and each opens, versions and migrates here:
//
//   - Open takes a path or a postgres:// URL, and either creates the database or, for a command
//     that only reads it, opens what exists and refuses anything else with the owner's "no …
//     at <target>" error, making nothing: no file, no table (a reader looks before the driver
//     makes a file).
//   - The schema version is SQLite's PRAGMA user_version (each owner has its own file) or, on
//     PostgreSQL, the owner's row of pricerig_schema (the owners share the database). A version
//     newer than the owner's migrations is refused (NewerSchemaError) rather than misread.
//   - Migrations are numbered; the missing ones run in one transaction under the lock that makes
//     two processes opening a new database at once migrate it once: BEGIN IMMEDIATE on SQLite,
//     the advisory lock 'pricerig schema' on PostgreSQL (both owners take the same one). The
//     version is read again under the lock. A database already at its version is only read, so
//     readers never wait for a writer.
//   - Statements are written once with ? placeholders; Q (and Dollar) number them $1, $2, … for
//     PostgreSQL.
//
// One PostgreSQL driver style: database/sql over pgx's stdlib driver, for both owners. The
// journal's SQL and most of the store's is the same text on both databases, run through the same
// *sql.DB methods, so database/sql is what lets it be written once; pgx's native interface is
// reached only where database/sql has no equivalent — COPY, which the store's bulk writes need —
// through PgConn, on a connection of the same pool (sql.Conn.Raw). The store used to hold a
// pgxpool beside a database/sql handle and the journal database/sql alone: two pools and two
// ways to run a statement for one database.
//
// Files: open.go (Open, the two databases' opening, errors), migrate.go (versions, migrations,
// the lock), tx.go (Tx, Q, Dollar, Retryable, ReadSnapshot, PgConn).
package sqldb
