//go:build !linux

package main

// threadID is unknown here; the affinity check then sees one thread.
func threadID() int { return 0 }
