package winexec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is returned by PSHost.Run after Close.
var ErrClosed = errors.New("winexec: backend closed")

// ErrBusy is returned (wrapped) by PSHost.Run when every PowerShell
// process stayed busy for the whole QueueTimeout. Nothing ran.
var ErrBusy = errors.New("winexec: every PowerShell host is busy")

// PSHost keeps a pool of powershell.exe processes running Bootstrap and
// sends each request to an idle one, so a call does not pay PowerShell's
// start-up. A process that dies, breaks the protocol or is cancelled is
// discarded and a new one started on demand. Tree kill and exit codes are
// as for PowerShell. Call Close to stop the processes.
type PSHost struct {
	PowerShell

	// PoolSize is the maximum number of PowerShell processes, and so of
	// concurrent requests; they start on demand. Zero means
	// DefaultPoolSize.
	PoolSize int

	// QueueTimeout bounds how long a request waits for a free process
	// when all PoolSize are busy; then it fails with ErrBusy, so calls
	// with long timeouts cannot make the others wait behind them. Zero
	// means DefaultQueueTimeout.
	QueueTimeout time.Duration

	// StartTimeout bounds PowerShell's start-up until the bootstrap's ready
	// frame. Zero means 30 s.
	StartTimeout time.Duration

	initOnce sync.Once
	slots    chan struct{}
	mu       sync.Mutex
	idle     []*psSession
	closed   bool
	nextID   atomic.Int64
}

func (h *PSHost) init() {
	h.initOnce.Do(func() {
		n := h.PoolSize
		if n <= 0 {
			n = DefaultPoolSize
		}
		h.slots = make(chan struct{}, n)
	})
}

// Run implements Backend.
func (h *PSHost) Run(ctx context.Context, req *Request) (*Result, error) {
	h.init()
	id := h.nextID.Add(1)
	w, err := h.wire(req, id)
	if err != nil {
		return nil, err
	}
	if err := h.acquire(ctx); err != nil {
		return nil, err
	}
	defer func() { <-h.slots }()

	s, err := h.get(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.do(ctx, w, req.maxOutput(), h.grace())
	if err != nil {
		s.kill(h.grace())
	} else {
		h.put(s)
	}
	h.finish(res, BackendPSHost)
	return res, err
}

// acquire takes a slot of the pool, waiting at most QueueTimeout.
func (h *PSHost) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	default:
	}
	qt := h.QueueTimeout
	if qt <= 0 {
		qt = DefaultQueueTimeout
	}
	t := time.NewTimer(qt)
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("%w: all %d busy for %v (WINBRIDGE_PSHOST_POOL, WINBRIDGE_QUEUE_TIMEOUT_MS)", ErrBusy, cap(h.slots), qt)
	}
}

// get returns a live idle session or starts one.
func (h *PSHost) get(ctx context.Context) (*psSession, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	for len(h.idle) > 0 {
		s := h.idle[len(h.idle)-1]
		h.idle = h.idle[:len(h.idle)-1]
		if s.alive() {
			h.mu.Unlock()
			return s, nil
		}
		loggerOr(h.Logger).Info("winexec: powershell host died while idle; restarting")
		s.kill(h.grace())
	}
	h.mu.Unlock()
	s, err := startSession(h.exe(), h.dir(), h.env(), loggerOr(h.Logger))
	if err != nil {
		return nil, err
	}
	st := h.StartTimeout
	if st <= 0 {
		st = 30 * time.Second
	}
	if err := s.waitReady(ctx, st); err != nil {
		s.kill(h.grace())
		return nil, err
	}
	return s, nil
}

func (h *PSHost) put(s *psSession) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		s.close(h.grace())
		return
	}
	h.idle = append(h.idle, s)
	h.mu.Unlock()
}

// Close stops the idle PowerShell processes; requests in flight finish and
// their processes are stopped when they return. Later calls fail with
// ErrClosed.
func (h *PSHost) Close() error {
	h.mu.Lock()
	h.closed = true
	idle := h.idle
	h.idle = nil
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range idle {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close(h.grace())
		}()
	}
	wg.Wait()
	return nil
}
