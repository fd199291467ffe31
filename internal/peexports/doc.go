// Package peexports reads the names a Windows DLL exports, from the
// export directory of its PE image, with debug/pe. It is the export check
// of the WinDbg extension: a DLL without the functions the debugger looks
// up by name loads, then fails at .load time; the check fails the build
// instead.
package peexports
