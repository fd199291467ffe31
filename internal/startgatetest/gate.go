package startgatetest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Hold reports this process's start in dir and holds it until the test
// lets it go (Dir.Release): it writes in.PID, then seen.PID, waits for
// go.PID, and writes out.PID. A helper server calls it before it answers
// anything. Each file appears whole (written aside, then renamed).
func Hold(dir string) {
	pid := strconv.Itoa(os.Getpid())
	count := func(prefix string) int {
		m, _ := filepath.Glob(filepath.Join(dir, prefix+".*"))
		return len(m)
	}
	tmp := filepath.Join(dir, "tmp."+pid)
	put := func(name string, b []byte) {
		_ = os.WriteFile(tmp, b, 0o600)
		_ = os.Rename(tmp, filepath.Join(dir, name+"."+pid))
	}
	put("in", nil)
	put("seen", []byte(strconv.Itoa(count("in")-count("out"))))
	for {
		if _, err := os.Stat(filepath.Join(dir, "go."+pid)); err == nil {
			break
		}
		time.Sleep(2 * time.Millisecond) // the child's own wait for the test
	}
	put("out", nil)
}

// Dir is where held starts report (Hold's dir).
type Dir string

// NewDir is a fresh Dir, removed when the test ends.
func NewDir(t testing.TB) Dir { return Dir(t.TempDir()) }

// PIDs lists, in order, the helpers that wrote prefix.PID.
func (d Dir) PIDs(prefix string) []int {
	m, _ := filepath.Glob(filepath.Join(string(d), prefix+".*"))
	var out []int
	for _, f := range m {
		if pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), prefix+".")); err == nil {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// UnderWay is how many starts have begun and not yet ended.
func (d Dir) UnderWay() int { return len(d.PIDs("in")) - len(d.PIDs("out")) }

// Release lets the start of helper pid go on.
func (d Dir) Release(t testing.TB, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(string(d), "go."+strconv.Itoa(pid)), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// ReleaseOne lets the first held start not yet let go go on.
func (d Dir) ReleaseOne(t testing.TB) {
	t.Helper()
	for _, pid := range d.PIDs("in") {
		if _, err := os.Stat(filepath.Join(string(d), "go."+strconv.Itoa(pid))); err != nil {
			d.Release(t, pid)
			return
		}
	}
	t.Fatal("no held start to let go")
}

// MaxSeen is the most starts under way that any helper found when its
// own began.
func (d Dir) MaxSeen(t testing.TB) int {
	t.Helper()
	most := 0
	for _, pid := range d.PIDs("seen") {
		b, err := os.ReadFile(filepath.Join(string(d), "seen."+strconv.Itoa(pid)))
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(string(b))
		if err != nil {
			t.Fatalf("seen.%d: %q", pid, b)
		}
		most = max(most, n)
	}
	return most
}

// Await polls cond until it reports true, for at most 30 s; a cond that
// returns an error fails the test at once (a bound broken is not waited
// out).
func Await(t testing.TB, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		done, err := cond()
		if err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronization
	}
}

// ReleaseInTurn lets the held starts go one at a time, checking before
// each that exactly min(limit, total-released) are under way, never more
// than limit, that released of them have ended, and, if waiting is not
// nil, that it reports the rest as waiting for a slot.
func (d Dir) ReleaseInTurn(t testing.TB, limit, released, total int, waiting func() int) {
	t.Helper()
	for ; released < total; released++ {
		want := min(limit, total-released)
		rest := total - released - want
		Await(t, fmt.Sprintf("%d starts under way, %d done, %d waiting", want, released, rest), func() (bool, error) {
			if u := d.UnderWay(); u > limit {
				return false, fmt.Errorf("%d starts under way at once; the bound is %d", u, limit)
			}
			return d.UnderWay() == want && len(d.PIDs("out")) == released && (waiting == nil || waiting() == rest), nil
		})
		d.ReleaseOne(t)
	}
}
