// Package logrec keeps log records for tests that assert what was logged:
// the echo diagnostics of package transport and of package mcphttp (Sink),
// how many warnings a flood from a hostile peer produced (Counter), and
// the text a handler wrote from several goroutines (Buffer).
package logrec
