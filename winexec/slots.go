package winexec

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrTooManyProcesses is returned (wrapped) by Executor.Run when
// Config.MaxProcesses calls were running for the whole of a call's
// timeout. Nothing ran.
var ErrTooManyProcesses = errors.New("winexec: too many programs running")

// maxProcesses is the number of calls an Executor runs at once.
func (c *Config) maxProcesses() int {
	if c.MaxProcesses > 0 {
		return c.MaxProcesses
	}
	return DefaultMaxProcesses
}

// acquire takes one of e's process slots for a call whose timeout is
// timeout, waiting at most that long and never past ctx. It returns the
// time left of the timeout, which the call then runs within, so that
// waiting and running together never exceed what the call asked for.
func (e *Executor) acquire(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	select {
	case e.slots <- struct{}{}:
		return timeout, nil
	default:
	}
	start := time.Now()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-t.C:
		return 0, e.tooMany(timeout)
	}
	left := timeout - time.Since(start)
	if left <= 0 {
		e.release()
		return 0, e.tooMany(timeout)
	}
	return left, nil
}

func (e *Executor) tooMany(waited time.Duration) error {
	return fmt.Errorf("%w: all %d slots busy for the call's whole timeout, %v (WINBRIDGE_MAX_PROCESSES)",
		ErrTooManyProcesses, cap(e.slots), waited)
}

func (e *Executor) release() { <-e.slots }
