//go:build !unix

// The demo starts the bundled fake hdc daemon, which is Unix-only; on
// other systems it says so instead of failing to build, so that
// `go build ./...` of the module works everywhere.

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "demo: runs on Linux (WSL included) and other Unix systems only; its fake hdc device daemon is Unix-only")
	os.Exit(1)
}
