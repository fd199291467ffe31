// Package cli holds the command-line conventions the example binaries
// share: -version, and flag errors reported once.
package cli
