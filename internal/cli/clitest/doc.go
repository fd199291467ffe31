// Package clitest helps test the command-line binaries: a pseudo-terminal.
package clitest
