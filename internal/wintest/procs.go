package wintest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Processes returns the PIDs of live processes (zombies excluded) whose
// command line contains token. Under wine a Windows process is a Linux
// process whose command line is the Windows one, so a token in a program's
// path or arguments finds it. Linux only; elsewhere it returns nil.
func Processes(token string) []int { return processes(token, 0) }

// ChildProcesses is Processes restricted to direct children of this
// process, so that concurrent test runs on the same machine do not count.
func ChildProcesses(token string) []int { return processes(token, os.Getpid()) }

func processes(token string, parent int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After "pid (comm) ": state, then the parent's PID.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		if parent != 0 {
			f := strings.Fields(string(stat[i+2:]))
			if len(f) < 2 || f[1] != strconv.Itoa(parent) {
				continue
			}
		}
		if strings.Contains(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})), token) {
			pids = append(pids, pid)
		}
	}
	return pids
}
