// Package delayq runs work a fixed delay after it was queued, unless it
// is taken back first, for many waits of one length on one runtime timer.
//
// An HTTP request that arms a timer of its own (time.AfterFunc, or a
// connection deadline) and stops it a moment later costs more than the
// timer's allocation: the runtime's timer heap on both ends and, when the
// new timer is the earliest, a wakeup of the network poller so that it
// sleeps less. Over loopback, one 20 ms timer per request cost a
// sequential client 7% of its calls per second. Nearly all such waits are
// taken back within a millisecond. The waits of a Queue all have the same
// length, so they fall due in the order they were added: one timer,
// armed for the first, serves them all, and is armed again at most once
// per delay while waits come and go.
package delayq
