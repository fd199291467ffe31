// Package logrec keeps log records for tests that assert what was logged:
// the echo diagnostics of package transport and of package mcphttp (Sink),
// and how many warnings a flood from a hostile peer produced (Counter).
package logrec
