//go:build !linux

package client_test

import "testing"

// checkTreesGone is checked on Linux only, through /proc.
func checkTreesGone(*testing.T, []int) {}
