package client

import (
	"os"

	"golang.org/x/sys/unix"
)

// waitExit returns when the process has exited, without reaping it: while
// it is a zombie its pid, and so its process group id, cannot be reused,
// which makes killing the group's leftovers safe. It reports false if it
// could not wait that way.
func waitExit(p *os.Process) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}
