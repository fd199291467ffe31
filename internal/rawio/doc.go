// Package rawio reads and writes poller-served pipes and sockets with raw
// system calls, for the stdio transports on both sides: transport.Stdio in
// a server and the client's launched child processes.
//
// A non-blocking descriptor can never block in read(2) or write(2), so the
// scheduler need not be told that the thread might: that notice wakes the
// runtime's monitor thread whenever the process was idle, which for a
// request-response protocol is on every message. When a call would block
// (EAGAIN), the goroutine waits on Go's poller as os.File would.
package rawio
