// Package closinglog is a log/slog handler that falls silent when its
// owner closes: the goroutines an owner starts (a read loop, a retry
// loop) learn of the close a moment after it, and a line they logged then
// reached a handler its owner's caller had already let go of (a buffer it
// read once the owner returned, a file it closed).
package closinglog
