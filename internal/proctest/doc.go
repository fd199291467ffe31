// Package proctest holds what tests ask of the processes they start and
// the system does not answer directly.
package proctest
