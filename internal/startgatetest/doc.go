// Package startgatetest lets tests count the starts of child processes
// under a start bound (client.StartLimit) without timing them: a helper
// server run with a directory holds its start there (Hold) until the
// test lets it go, and the test reads from the directory (Dir) how many
// starts are under way and how many any start saw when it began.
//
// The files, each named by the helper's pid: in.PID when its start
// begins, seen.PID holding the starts it found under way (itself
// included), go.PID written by the test to let it go, out.PID when its
// start ends. A start slot is held from before in.PID until after
// out.PID, so the starts under way never number more than the bound.
package startgatetest
