package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// amplifyingArgs are tools/call arguments of n empty objects: 3n bytes on
// the wire, some thirty times that decoded into a map[string]any.
func amplifyingArgs(n int) string {
	return `{"a":[` + strings.Repeat(`{},`, n-1) + `{}]}`
}

// paramsWire is a raw connection to a server bounded to maxParams, whose
// tool "untyped" takes a map[string]any and counts its runs, and whose
// tool "len" answers the length of its text argument.
func paramsWire(t *testing.T, maxParams int64) (*wire, *atomic.Int64) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{MaxParamsMemory: maxParams, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var runs atomic.Int64
	mcp.AddTool(srv, &mcp.Tool{Name: "untyped"}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "len"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("n", len(in.Text)>>20)}}}, nil, nil
	})
	w := initializedWire(t, srv, `{}`)
	return w, &runs
}

// A request's params are bounded by what they take decoded, not only by
// their bytes: arguments of empty objects within the message bound took
// some thirty times their bytes in the server's maps, a gigabyte at the
// 32 MiB default. They are now estimated before anything decodes them and
// refused over MaxParamsMemory with CodeInvalidParams; the handler does
// not run and the session goes on.
func TestParamsDecodedSizeIsBoundedOverStdio(t *testing.T) {
	const n = 1 << 18 // 768 KiB on the wire, some 25 MiB decoded
	w, runs := paramsWire(t, 8<<20)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"untyped","arguments":` + amplifyingArgs(n) + `}}`
	var got string
	alloc := allocatedBy(func() {
		w.send(call)
		got = w.recv()
	})
	if !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "MaxParamsMemory") || !strings.Contains(got, `"id":1`) {
		t.Fatalf("tools/call of %d empty objects under MaxParamsMemory of 8 MiB answered %.300s, want -32602 naming MaxParamsMemory", n, got)
	}
	if runs.Load() != 0 {
		t.Error("the tool ran for arguments refused as too large")
	}
	// Refused before decoding: the server allocated about the message's
	// bytes (read, framed), not its objects.
	if alloc > 8<<20 {
		t.Errorf("allocated %d MiB for refused params of %d KiB", alloc>>20, 3*n>>10)
	}
	// The same params in a notification are dropped, and in a _meta
	// refused; then the next call runs.
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":` + amplifyingArgs(n) + `}}`)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":` + amplifyingArgs(n) + `}}`)
	if got := w.recv(); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "MaxParamsMemory") {
		t.Fatalf("ping with a _meta of %d empty objects answered %.300s, want an error naming MaxParamsMemory", n, got)
	}
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"untyped","arguments":{"a":[{}]}}}`)
	if got := w.recv(); !strings.Contains(got, `"id":3`) || !strings.Contains(got, `"ran"`) {
		t.Fatalf("the call after the refused ones answered %.300s", got)
	}
	if runs.Load() != 1 {
		t.Errorf("the tool ran %d times, want once", runs.Load())
	}
}

// Text, the usual large argument, is estimated near its bytes: 8 MiB of
// it passes a bound of 32 MiB.
func TestLargeTextParamsPass(t *testing.T) {
	w, _ := paramsWire(t, 32<<20)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"len","arguments":{"text":"` + strings.Repeat("x", 8<<20) + `"}}}`)
	if got := w.recv(); !strings.Contains(got, `"id":1`) || !strings.Contains(got, `"text":"nnnnnnnn"`) {
		t.Fatalf("8 MiB of text under a 32 MiB bound answered %.300s", got)
	}
}

// A negative MaxParamsMemory is no bound.
func TestParamsBoundOff(t *testing.T) {
	w, runs := paramsWire(t, -1)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"untyped","arguments":` + amplifyingArgs(1<<16) + `}}`)
	if got := w.recv(); !strings.Contains(got, `"ran"`) || runs.Load() != 1 {
		t.Fatalf("with no bound, the call answered %.300s", got)
	}
}

// allocatedBy is what f allocates, as the runtime counts it (the whole
// process: the client's side of the wire too).
func allocatedBy(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// The client's results of the server's own requests are bounded as its
// params are: a roots/list or sampling result of empty objects within the
// message bound took thirty times its bytes when decoded. The handler gets
// ErrClientResultTooLarge, and the session goes on.
func TestClientResultDecodedSizeIsBounded(t *testing.T) {
	const n = 1 << 18 // 768 KiB on the wire, some 25 MiB decoded
	srv := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{MaxParamsMemory: 8 << 20, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	errs := make(chan error, 2)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, r *mcp.CallToolRequest, in struct {
		Raw bool `json:"raw,omitempty"`
	}) (*mcp.CallToolResult, any, error) {
		var err error
		if in.Raw {
			_, err = r.CreateMessageRaw(ctx, json.RawMessage(`{"messages":[],"maxTokens":1}`))
		} else {
			_, err = r.ListRoots(ctx)
		}
		errs <- err
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "asked"}}}, nil, nil
	})
	w := initializedWire(t, srv, `{"roots":{},"sampling":{}}`)
	for i, c := range []struct{ args, method, result string }{
		{`{}`, "roots/list", `{"roots":[{"uri":"file:///x","_meta":` + amplifyingArgs(n) + `}]}`},
		{`{"raw":true}`, "sampling/createMessage", `{"role":"assistant","model":"m","content":{"type":"text","text":"x"},"_meta":` + amplifyingArgs(n) + `}`},
	} {
		w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"ask","arguments":` + c.args + `}}`)
		req := w.recv()
		if !strings.Contains(req, `"method":"`+c.method+`"`) {
			t.Fatalf("want the server's %s, got %.300s", c.method, req)
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(req), &m); err != nil {
			t.Fatal(err)
		}
		alloc := allocatedBy(func() {
			w.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + c.result + `}`)
			if got := w.recv(); !strings.Contains(got, `"asked"`) {
				t.Fatalf("the tool answered %.300s", got)
			}
		})
		if err := <-errs; !errors.Is(err, mcp.ErrClientResultTooLarge) || !strings.Contains(err.Error(), "MaxParamsMemory") {
			t.Errorf("%s: the handler got %v, want ErrClientResultTooLarge naming MaxParamsMemory", c.method, err)
		}
		if alloc > 16<<20 {
			t.Errorf("%s: allocated %d MiB for a refused result of %d KiB", c.method, alloc>>20, 3*n>>10)
		}
	}
	// A result within the bound decodes as before.
	w.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	req := w.recv()
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(req), &m); err != nil {
		t.Fatal(err)
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"roots":[{"uri":"file:///x"}]}}`)
	w.recv()
	if err := <-errs; err != nil {
		t.Errorf("a small roots/list result: %v", err)
	}
}
