//go:build !linux

package gateway

import (
	"fmt"
	"os"
)

// benchServer: the benchmarks that run it as a child are Linux-only
// (bench_test.go); elsewhere the helper mode says so.
func benchServer(mode string) int {
	fmt.Fprintf(os.Stderr, "helper mode %q runs on Linux only\n", mode)
	return 2
}
