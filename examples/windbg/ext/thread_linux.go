package main

import "syscall"

// currentThreadID is the calling OS thread.
func currentThreadID() uint64 { return uint64(syscall.Gettid()) }
