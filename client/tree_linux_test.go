//go:build linux

package client_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/proctest"
)

// checkTreesGone checks that the processes and every member of their
// process groups (npx's node, say) are gone.
func checkTreesGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if !pollUntil(2*time.Second, func() bool { return proctest.Gone(pid) && len(groupMembers(pid)) == 0 }) {
			t.Errorf("process %d or its group %v still running", pid, groupMembers(pid))
		}
	}
}

// groupMembers lists the live processes whose process group is pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			out = append(out, pid)
		}
	}
	return out
}
