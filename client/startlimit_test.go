//go:build linux

package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// releaseOne lets the first held start that is not yet let go go on.
func (d gateDir) releaseOne(t *testing.T) {
	t.Helper()
	for _, pid := range d.pids("in") {
		if _, err := os.Stat(filepath.Join(string(d), "go."+strconv.Itoa(pid))); err != nil {
			d.release(t, pid)
			return
		}
	}
}

// TestStartLimitSharedByLaunchAndManager: one StartLimit given to
// Launch calls and to a Manager (Process.StartLimit) bounds their starts
// together: never more than its n under way, the others waiting on it,
// and all of them ready once let go.
func TestStartLimitSharedByLaunchAndManager(t *testing.T) {
	noLeaks(t)
	const launches, managed, limit = 3, 3, 2
	const n = launches + managed
	dir := newGateDir(t)
	sl := client.NewStartLimit(limit)
	servers := map[string]any{}
	for i := range managed {
		servers[fmt.Sprintf("m%d", i)] = helperServerJSON(t, nil, "WB_GATE_DIR="+string(dir))
	}
	// MaxConcurrentStarts is ignored: Process.StartLimit replaces it.
	m := client.NewManager(parseConfig(t, servers), &client.ManagerOptions{MaxConcurrentStarts: 100,
		Process: client.ProcessOptions{Logger: quietLog, StartLimit: sl}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	errs := make(chan error, launches+1)
	procs := make(chan *client.Process, launches)
	for range launches {
		go func() {
			p, err := client.Launch(ctx, helperCommand(t, "server", "WB_GATE_DIR="+string(dir)),
				&client.ProcessOptions{Logger: quietLog, StartLimit: sl})
			if p != nil {
				procs <- p
			}
			errs <- err
		}()
	}
	go func() { errs <- m.Start(ctx) }()

	for released := 0; released < n; released++ {
		want := min(limit, n-released)
		waiting := n - released - want
		awaitState(t, fmt.Sprintf("%d starts under way and %d waiting", want, waiting), func() (bool, error) {
			if u := dir.underWay(); u > limit {
				return false, fmt.Errorf("%d starts under way at once; the bound is %d", u, limit)
			}
			return dir.underWay() == want && len(dir.pids("out")) == released && client.LimitWaiting(sl) == waiting, nil
		})
		dir.releaseOne(t)
	}
	for range launches + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for range launches {
		p := <-procs
		if p.State() != client.StateReady {
			t.Errorf("a launched process is %v", p.State())
		}
		p.Close()
	}
	if most := dir.maxSeen(t); most > limit {
		t.Errorf("a server found %d starts under way; the bound is %d", most, limit)
	}
	for _, st := range m.Status() {
		if st.State != client.StateReady {
			t.Errorf("%s: %v %v", st.Name, st.State, st.Err)
		}
	}
}

// TestLaunchStartLimitWaitHonoursContext: a Launch waiting for a slot
// returns when its context ends, with the context's error, launching
// nothing and keeping no slot.
func TestLaunchStartLimitWaitHonoursContext(t *testing.T) {
	noLeaks(t)
	dir := newGateDir(t)
	sl := client.NewStartLimit(1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	held := make(chan *client.Process, 1)
	go func() {
		p, err := client.Launch(ctx, helperCommand(t, "server", "WB_GATE_DIR="+string(dir)), &client.ProcessOptions{Logger: quietLog, StartLimit: sl})
		if err != nil {
			t.Error(err)
		}
		held <- p
	}()
	awaitState(t, "the held start", func() (bool, error) { return len(dir.pids("in")) == 1, nil })

	wctx, wcancel := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() {
		p, err := client.Launch(wctx, helperCommand(t, "server"), &client.ProcessOptions{Logger: quietLog, StartLimit: sl})
		if p != nil {
			p.Close()
		}
		waited <- err
	}()
	awaitState(t, "a start waiting for the slot", func() (bool, error) { return client.LimitWaiting(sl) == 1, nil })
	wcancel()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled wait: %v; want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("a cancelled wait for a slot did not return")
	}

	dir.releaseOne(t)
	if p := <-held; p != nil {
		p.Close()
	}
	// With one slot, this starts only if neither start kept it.
	p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{StartLimit: sl})
	p.Close()
}

// TestStartLimitNegativeBoundsNothing: NewStartLimit(-1), like a nil
// StartLimit, lets every start run at once.
func TestStartLimitNegativeBoundsNothing(t *testing.T) {
	noLeaks(t)
	for _, sl := range []*client.StartLimit{client.NewStartLimit(-1), nil} {
		dir := newGateDir(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		const n = 3
		procs := make(chan *client.Process, n)
		for range n {
			go func() {
				p, err := client.Launch(ctx, helperCommand(t, "server", "WB_GATE_DIR="+string(dir)), &client.ProcessOptions{Logger: quietLog, StartLimit: sl})
				if err != nil {
					t.Error(err)
				}
				procs <- p
			}()
		}
		awaitState(t, "every start under way at once", func() (bool, error) { return dir.underWay() == n, nil })
		for range n {
			dir.releaseOne(t)
		}
		for range n {
			if p := <-procs; p != nil {
				p.Close()
			}
		}
		cancel()
	}
}
