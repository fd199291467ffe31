// Package servers holds what the benchmark servers share: the tools'
// arguments and the sleep. Each library's server lives in its own
// subpackage, so that each server binary links only its own library.
//
// The workload, the same for every implementation: a tool "echo" {text
// string} that returns its text as one text content block, and a tool
// "sleep" {ms int} that blocks for ms milliseconds (or until cancelled) and
// returns "ok".
package servers

import (
	"context"
	"time"
)

// EchoIn and SleepIn are the tools' arguments.
type EchoIn struct {
	Text string `json:"text"`
}

type SleepIn struct {
	Ms int `json:"ms"`
}

// Sleep blocks for ms milliseconds or until ctx ends.
func Sleep(ctx context.Context, ms int) {
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
