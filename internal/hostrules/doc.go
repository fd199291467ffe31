// Package hostrules checks tool lists, for tests, against the rules MCP
// hosts document (or state in the errors they answer with) for tool names
// and input schemas. Each Host is written from that host's rules, not from
// what this repository emits: a test that loads a server's tools into
// every Host shows the list is accepted everywhere.
package hostrules
