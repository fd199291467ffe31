package gateway

import (
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// gatedStart reports this start in dir and holds it until the test lets
// it go: it writes in.PID, then seen.PID holding the number of starts it
// found under way (in.* less out.*, itself included), waits for go.PID,
// and writes out.PID before it answers anything. The facade holds a start
// slot from before in.PID until after out.PID, so the starts under way
// never number more than its bound. (The client package's helper server
// does the same.)
func gatedStart(dir string) {
	pid := strconv.Itoa(os.Getpid())
	count := func(prefix string) int {
		m, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
		return len(m)
	}
	tmp := filepath.Join(dir, "tmp."+pid)
	os.WriteFile(tmp, nil, 0o600)
	os.Rename(tmp, filepath.Join(dir, "in."+pid))
	os.WriteFile(tmp, []byte(strconv.Itoa(count("in.")-count("out."))), 0o600)
	os.Rename(tmp, filepath.Join(dir, "seen."+pid))
	for {
		if _, err := os.Stat(filepath.Join(dir, "go."+pid)); err == nil {
			break
		}
		time.Sleep(2 * time.Millisecond) // the child's own wait for the test
	}
	os.WriteFile(tmp, nil, 0o600)
	os.Rename(tmp, filepath.Join(dir, "out."+pid))
}
