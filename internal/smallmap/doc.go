// Package smallmap provides a map from strings that holds its first
// entry inline: a Go map costs two allocations (its header, and its first
// group at the first entry), and a stateless session has one request in
// flight, made and dropped with it.
package smallmap
