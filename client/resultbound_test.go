package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// amplifier is a server whose every result is small on the wire and large
// decoded: nested empty objects where each of its results has a list of
// structs, or an any.
func amplifier(conn net.Conn, n int) {
	empties := strings.Repeat(`{},`, n-1) + `{}`
	lineServer(conn, func(method string) string {
		switch method {
		case "initialize":
			return initResult("amp")
		case "tools/call":
			return `{"content":[{"type":"resource_link","uri":"x:","name":"x","icons":[` + empties + `]}]}`
		case "resources/read":
			return `{"contents":[],"_meta":{"a":[` + empties + `]}}`
		case "prompts/get":
			return `{"messages":[],"_meta":{"a":[` + empties + `]}}`
		case "tools/list":
			return `{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":[` + empties + `]}]}`
		}
		return `{}`
	})
}

// A result is bounded by what it takes decoded, not only by its bytes:
// "{}" is two bytes and a struct or map of a hundred or more, so a result
// of empty objects within the message bound took some thirty times it (a
// gigabyte at the 32 MiB default). Each result is now estimated before it
// is decoded, whatever its method and however the client decodes it, and
// refused over MaxResultMemory.
func TestResultDecodedSizeIsBounded(t *testing.T) {
	noLeaks(t)
	const n = 1 << 18 // 768 KiB on the wire, some 25 MiB decoded
	for _, method := range []string{"tools/call", "tools/call async", "resources/read", "prompts/get", "tools/list"} {
		t.Run(method, func(t *testing.T) {
			a, b := net.Pipe()
			go amplifier(b, n)
			c, err := client.Connect(context.Background(), transport.NewStream(transport.NewLineFramer(a, 0), nil),
				&client.Options{ProtocolVersion: "2025-11-25", MaxResultMemory: 8 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			switch method {
			case "tools/call":
				_, err = c.CallTool(ctx, "x", nil)
			case "tools/call async":
				_, err = c.CallToolAsync(ctx, "x", nil).Wait()
			case "resources/read":
				_, err = c.ReadResource(ctx, "x:")
			case "prompts/get":
				_, err = c.GetPrompt(ctx, "x", nil)
			case "tools/list":
				_, err = c.ListTools(ctx)
			}
			runtime.ReadMemStats(&m1)
			if !errors.Is(err, client.ErrResultTooLarge) || !strings.Contains(err.Error(), "MaxResultMemory") {
				t.Fatalf("%s of %d empty objects under MaxResultMemory of 8 MiB: %v, want ErrResultTooLarge naming MaxResultMemory", method, n, err)
			}
			// Refused before decoding: the client allocated about the
			// result's bytes (read, checked), not its objects.
			if d := m1.TotalAlloc - m0.TotalAlloc; d > 8<<20 {
				t.Errorf("allocated %d MiB for a refused result of %d KiB", d>>20, 3*n>>10)
			}
			// The connection goes on: only the call failed.
			if err := c.Ping(ctx); err != nil {
				t.Errorf("ping after the refused result: %v", err)
			}
		})
	}
}

// A large result of text, the usual large one, is estimated near its
// bytes: one of 8 MiB passes a bound of 32 MiB.
func TestLargeTextResultPasses(t *testing.T) {
	a, b := net.Pipe()
	text := strings.Repeat("x", 8<<20)
	go lineServer(b, func(method string) string {
		if method == "initialize" {
			return initResult("text")
		}
		return `{"content":[{"type":"text","text":"` + text + `"}]}`
	})
	c, err := client.Connect(context.Background(), transport.NewStream(transport.NewLineFramer(a, 0), nil),
		&client.Options{ProtocolVersion: "2025-11-25", MaxResultMemory: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "x", nil)
	if err != nil || len(res.TextOf()) != len(text) {
		t.Fatalf("8 MiB of text under a 32 MiB bound: %v", err)
	}
}

// The server's own messages are held to the same bound: a log message's
// data, or a sampling request's _meta, of empty objects would take as
// much memory decoded as a result of them. Such a notification is dropped
// and such a request refused, before either is decoded; the next message
// is served as usual.
func TestServerMessagesDecodedSizeIsBounded(t *testing.T) {
	noLeaks(t)
	a, b := net.Pipe()
	empties := strings.Repeat(`{},`, 1<<18-1) + `{}`
	answered := make(chan string, 1)
	go func() {
		r := bufio.NewReader(b)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Error  json.RawMessage `json:"error"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(line, &msg) != nil {
				continue
			}
			var out string
			switch {
			case msg.Method == "initialize":
				out = `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"amp","version":"1"}}}` + "\n"
			case msg.Method == "notifications/initialized":
				out = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":[` + empties + `]}}` + "\n" +
					`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"_meta":{"a":[` + empties + `]}}}` + "\n" +
					`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"small"}}` + "\n"
			case msg.Method == "" && string(msg.ID) == `"s1"`:
				answered <- string(msg.Error) + string(msg.Result)
				continue
			case msg.ID != nil:
				out = `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{}}` + "\n"
			default:
				continue
			}
			if _, err := b.Write([]byte(out)); err != nil {
				return
			}
		}
	}()
	logs := make(chan any, 4)
	sampled := make(chan struct{}, 1)
	c, err := client.Connect(context.Background(), transport.NewStream(transport.NewLineFramer(a, 0), nil), &client.Options{
		ProtocolVersion: "2025-11-25",
		MaxResultMemory: 8 << 20,
		OnLog:           func(p *mcp.LoggingMessageParams) { logs <- p.Data },
		OnSampling: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			sampled <- struct{}{}
			return nil, errors.New("not here")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The log messages are handled in order: the small one, last, comes
	// after the large one was dropped.
	if d := <-logs; d != "small" {
		t.Fatalf("the first log message delivered holds a %T, want only the small one", d)
	}
	if got := <-answered; !strings.Contains(got, "MaxResultMemory") || !strings.Contains(got, `"code"`) {
		t.Errorf("the amplifying sampling request was answered %.200s, want an error naming MaxResultMemory", got)
	}
	select {
	case <-sampled:
		t.Error("OnSampling ran for a request refused as too large")
	default:
	}
}
