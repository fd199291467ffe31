package main

import "syscall"

// threadID is the calling OS thread, for the fake engine's affinity check.
func threadID() int { return syscall.Gettid() }
