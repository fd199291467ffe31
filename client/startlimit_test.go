//go:build linux

package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/startgatetest"
)

// TestStartLimitSharedByLaunchAndManager: one StartLimit given to
// Launch calls and to a Manager (Process.StartLimit) bounds their starts
// together: never more than its n under way, the others waiting on it,
// and all of them ready once let go.
func TestStartLimitSharedByLaunchAndManager(t *testing.T) {
	noLeaks(t)
	const launches, managed, limit = 3, 3, 2
	const n = launches + managed
	dir := startgatetest.NewDir(t)
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

	dir.ReleaseInTurn(t, limit, 0, n, func() int { return client.LimitWaiting(sl) })
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
	if most := dir.MaxSeen(t); most > limit {
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
	dir := startgatetest.NewDir(t)
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
	startgatetest.Await(t, "the held start", func() (bool, error) { return len(dir.PIDs("in")) == 1, nil })

	wctx, wcancel := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() {
		p, err := client.Launch(wctx, helperCommand(t, "server"), &client.ProcessOptions{Logger: quietLog, StartLimit: sl})
		if p != nil {
			p.Close()
		}
		waited <- err
	}()
	startgatetest.Await(t, "a start waiting for the slot", func() (bool, error) { return client.LimitWaiting(sl) == 1, nil })
	wcancel()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled wait: %v; want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("a cancelled wait for a slot did not return")
	}

	dir.ReleaseOne(t)
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
		dir := startgatetest.NewDir(t)
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
		startgatetest.Await(t, "every start under way at once", func() (bool, error) { return dir.UnderWay() == n, nil })
		for range n {
			dir.ReleaseOne(t)
		}
		for range n {
			if p := <-procs; p != nil {
				p.Close()
			}
		}
		cancel()
	}
}
