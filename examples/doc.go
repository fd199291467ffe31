// Package examples holds runnable programs built on winbridge: the
// conformance fixture server (everything-server), the smallest useful
// server (echo), and, as their issues land, the winbridge bridge server, a
// command-line client and a WinDbg server. Each is a main package in its
// own directory; this file only documents the directory.
package examples
