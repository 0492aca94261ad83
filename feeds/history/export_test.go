package history

// SetBeforeCoverageRead makes Fetched run f between its read of the cursors and its read of the
// coverage, for a test of another writer committing there; the returned func puts back what was.
func SetBeforeCoverageRead(f func()) (restore func()) {
	old := beforeCoverageRead
	beforeCoverageRead = f
	return func() { beforeCoverageRead = old }
}
