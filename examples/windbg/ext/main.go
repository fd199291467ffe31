// Command ext is a WinDbg extension DLL, written in Go and built with
// go build -buildmode=c-shared, that serves MCP from inside a live
// debugging session: .load it in WinDbg and an assistant can evaluate
// debugger commands in that session through one tool, windbg_eval
// (windbg.eval with WINDBG_MCP_DOTTED_NAMES=1), on a Streamable HTTP
// endpoint at /mcp on a loopback address.
//
// One goroutine locked to its OS thread owns the debugger-engine clients
// and makes every engine call; HTTP handlers queue work to it. Every
// request is echoed, masked and cut, in the debugger's window. The module
// pins itself (a Go runtime cannot be unloaded), so .unload stops the
// service and a later .load starts it again.
//
// docs/WINDBG.md describes building, loading, the settings and the tests.
package main

// main is required by -buildmode=c-shared and never runs.
func main() {}
