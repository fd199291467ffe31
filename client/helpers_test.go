package client_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

func runtimeGosched() { runtime.Gosched() }

// quietLog drops the warnings the misbehaving servers cause on purpose.
var quietLog = slog.New(slog.DiscardHandler)

// noLeaks records the goroutines and descriptors now and checks, when the
// test ends (after the cleanups registered later, which run first), that
// their numbers came back down within a bounded poll.
func noLeaks(t *testing.T) {
	t.Helper()
	g0, fd0 := runtime.NumGoroutine(), countFDs()
	t.Cleanup(func() {
		var g, fd int
		ok := pollUntil(5*time.Second, func() bool {
			g, fd = runtime.NumGoroutine(), countFDs()
			return g <= g0 && fd <= fd0
		})
		if !ok {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("leak: %d goroutines (was %d), %d descriptors (was %d)\n%s", g, g0, fd, fd0, buf)
		}
	})
}

// countFDs counts this process's open descriptors (-1 where /proc is
// missing, which makes the check vacuous).
func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// pollUntil polls cond every few milliseconds until it holds or d passes.
func pollUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronization
	}
}

// lineServer is a hand-written MCP server on conn, one JSON-RPC message a
// line: each request is answered with the result its method gets from
// result (raw JSON); "" closes conn and stops. Notifications and answers
// are ignored.
func lineServer(conn net.Conn, result func(method string) string) {
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil || req.Method == "" {
			continue
		}
		res := result(req.Method)
		if res == "" {
			conn.Close()
			return
		}
		if _, err := conn.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + res + "}\n")); err != nil {
			return
		}
	}
}

// initResult is an initialize result of server name, with every server
// capability a test of lists and results needs.
func initResult(name string) string {
	return `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"` + name + `","version":"1"}}`
}
