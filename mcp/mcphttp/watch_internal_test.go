package mcphttp

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
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
		lw := &lateWatch{ctx: ctx, f: func() { close(ran) }}
		lw.timer = newStoppedTimer()
		lw.arm() // as the timer would
		cancel()
		<-ran
		if lw.release() {
			t.Fatal("release after f ran reported true")
		}
	})
	t.Run("armed then released", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		lw := &lateWatch{ctx: ctx, f: func() { t.Error("f ran after release") }}
		lw.timer = newStoppedTimer()
		lw.arm()
		if !lw.release() {
			t.Fatal("release of an armed watch reported false")
		}
		cancel()
	})
}

// TestWatchLateWith: also runs once the watch arms, and never after an
// early release.
func TestWatchLateWith(t *testing.T) {
	t.Run("released early", func(t *testing.T) {
		var ran atomic.Bool
		release := watchLateWith(context.Background(), func() {}, func() { ran.Store(true) })
		if !release() {
			t.Fatal("release before arming reported false")
		}
		if ran.Load() {
			t.Fatal("also ran after release")
		}
	})
	t.Run("armed", func(t *testing.T) {
		ran := make(chan struct{})
		release := watchLateWith(context.Background(), func() {}, func() { close(ran) })
		<-ran // after watchAfter
		if !release() {
			t.Fatal("release of an armed watch whose context is live reported false")
		}
	})
}

// newStoppedTimer is a timer that has fired: Stop reports false, as for
// a watch whose timer ran arm.
func newStoppedTimer() *time.Timer {
	t := time.NewTimer(0)
	<-t.C
	return t
}
