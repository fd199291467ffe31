// Command jobrun runs one Windows command line inside a Job Object, for
// winexec's direct backend (Direct.JobHelper): WSL interop and wine kill
// only the process they started, and a grandchild started detached, in a
// new console or in a new process group (cmd /c start) escapes them.
//
//	jobrun.exe <command line, hex-encoded UTF-8>
//
// The command line is passed to CreateProcess verbatim (hex, so that no
// layer re-quotes it); the program inherits jobrun's standard handles,
// environment and working directory and starts suspended, joins a
// kill-on-close job that it cannot break away from, and only then runs.
// When jobrun is killed (a timeout or a cancel kills it from the Linux
// side) its handle to the job closes and Windows kills the whole tree.
// When the program exits by itself, the job is released first, so a
// daemon it started keeps running. jobrun exits with the program's exit
// code; it reports its own failures on stderr with exit code 127.
//
// Build it for Windows:
//
//	GOOS=windows GOARCH=amd64 go build -o jobrun.exe github.com/winbridge/winbridge/winexec/jobrun
package main

import (
	"encoding/hex"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: jobrun <hex-encoded command line>")
		os.Exit(127)
	}
	line, err := hex.DecodeString(os.Args[1])
	if err != nil || len(line) == 0 {
		fmt.Fprintln(os.Stderr, "jobrun: the command line must be non-empty hex")
		os.Exit(127)
	}
	code, err := run(string(line))
	if err != nil {
		fmt.Fprintln(os.Stderr, "jobrun:", err)
		os.Exit(127)
	}
	os.Exit(int(code))
}
