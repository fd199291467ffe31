package main

import "golang.org/x/sys/windows"

// currentThreadID is the calling OS thread.
func currentThreadID() uint64 { return uint64(windows.GetCurrentThreadId()) }
