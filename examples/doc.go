// Package examples holds runnable programs built on winbridge: the
// README's main job (demo), the bridge server (winbridge), the conformance
// fixture server and client (everything-server, everything-client), the
// smallest useful server (echo), a command-line client (mcpc), and an
// HTTP MCP server over a cdb.exe debugging session (windbg) with the WinDbg
// extension DLL that serves MCP from inside the debugger (windbg/ext). Each
// is a main package in its own directory; this file only documents the
// directory.
package examples
