package mcphttp

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/internal/delayq"
)

// TestWatchLate: release before the watch arms reports true and f never
// runs; a context done before or after arming runs f once, and release
// then reports false.
func TestWatchLate(t *testing.T) {
	t.Run("released early", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Bool
		release := watchLate(ctx, func() { ran.Store(true) })
		if !release() {
			t.Fatal("release before arming reported false")
		}
		cancel()
		if !release() {
			t.Fatal("a second release reported false")
		}
		if ran.Load() {
			t.Fatal("f ran after release")
		}
	})
	t.Run("done before arming", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ran := make(chan struct{})
		release := watchLate(ctx, func() { close(ran) })
		<-ran // runs once the watch arms, after watchAfter
		if release() {
			t.Fatal("release after f ran reported true")
		}
	})
	t.Run("done after arming", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan struct{})
		lw := &lateWatch{q: delayq.New(watchAfter), ctx: ctx, f: func() { close(ran) }}
		lw.arm() // as the queue would, once the wait fell due
		cancel()
		<-ran
		if lw.release() {
			t.Fatal("release after f ran reported true")
		}
	})
	t.Run("armed then released", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		lw := &lateWatch{q: delayq.New(watchAfter), ctx: ctx, f: func() { t.Error("f ran after release") }}
		lw.arm()
		if !lw.release() {
			t.Fatal("release of an armed watch reported false")
		}
		cancel()
	})
}

// TestWatchPost: the streamer never starts after an early release;
// the wait falling due arms the watch and starts the streamer.
func TestWatchPost(t *testing.T) {
	t.Run("released early", func(t *testing.T) {
		st := &streamer{}
		lw := (&Handler{late: delayq.New(watchAfter)}).watchPost(httptest.NewRequest("POST", "/", nil), &httpSession{}, st, nil)
		if !lw.release() {
			t.Fatal("release before arming reported false")
		}
		if st.finish() {
			t.Fatal("the streamer started after release")
		}
	})
	t.Run("fired", func(t *testing.T) {
		st := &streamer{started: true} // as if started: start does nothing more
		lw := &lateWatch{q: delayq.New(watchAfter), ctx: context.Background(), f: func() {}, also: st}
		lw.Due() // as the queue would
		if lw.stop == nil {
			t.Fatal("fire did not arm the watch")
		}
		if !lw.release() {
			t.Fatal("release of an armed watch whose context is live reported false")
		}
	})
}

// watchLate calls f in its own goroutine once ctx is done, as
// context.AfterFunc does, but starts watching ctx only after watchAfter.
// The returned release stops it, and reports false if f ran or runs.
func watchLate(ctx context.Context, f func()) (release func() bool) {
	lw := &lateWatch{q: delayq.New(watchAfter), ctx: ctx, f: f}
	lw.q.Add(&lw.Entry, lw)
	return lw.release
}
