//go:build !unix && !windows

package transport

import "os"

// divertStdout cannot move descriptors here; the protocol uses os.Stdout as is.
func divertStdout() (*os.File, func(), error) { return os.Stdout, func() {}, nil }

func pollableStdin() (*os.File, func()) { return os.Stdin, func() {} }
