// Package schematest checks, for tests, that the schemas a server lists
// carry the descriptions written in the Go source, whole.
package schematest
