package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// TestServerMessagesConform runs a Server and validates what it actually
// sends, in every revision, against that revision's schema. Violations of
// the published schema fail the test, and so do members a revision does not
// define (which the published schemas tolerate): the server gates them by
// the revision of each request.
func TestServerMessagesConform(t *testing.T) {
	requirePeers(t, peerSchemaDir)
	for _, rev := range schemaRevisions {
		t.Run(rev, func(t *testing.T) {
			s := schemaFor(t, rev)
			c, srv := startConfServer(t)
			stateless := IsStateless(rev)
			meta := func(extra map[string]any) map[string]any {
				m := map[string]any{}
				if stateless {
					m = map[string]any{
						MetaProtocolVersion:    rev,
						MetaClientInfo:         map[string]any{"name": "c", "version": "1"},
						MetaClientCapabilities: map[string]any{},
						MetaLogLevel:           "debug",
					}
				}
				for k, v := range extra {
					m[k] = v
				}
				return m
			}
			check := func(what string, msg json.RawMessage, defs ...string) {
				t.Helper()
				for _, d := range defs {
					if !s.has(d) {
						continue
					}
					if err := s.validate(d, msg, false); err != nil {
						t.Errorf("%s: %s rejects %s:\n%v", what, d, msg, err)
					}
				}
			}
			checkResult := func(what string, msg json.RawMessage, resultDef string) {
				t.Helper()
				check(what, msg, "JSONRPCResponse", "JSONRPCMessage", resultDef+"Response")
				var m struct{ Result json.RawMessage }
				if err := json.Unmarshal(msg, &m); err != nil || m.Result == nil {
					t.Errorf("%s: not a result: %s", what, msg)
					return
				}
				check(what+" result", m.Result, resultDef)
				if err := s.validate(resultDef, m.Result, true); err != nil {
					t.Errorf("%s: %s has members %s does not define:\n%s\n%v", what, resultDef, rev, m.Result, err)
				}
			}
			checkError := func(what string, msg json.RawMessage, defs ...string) {
				t.Helper()
				if !strings.Contains(string(msg), `"error"`) {
					t.Errorf("%s: want an error, got %s", what, msg)
				}
				// JSONRPCError (to 2025-06-18) and JSONRPCErrorResponse (from
				// 2025-11-25) are the error message; a revision has one.
				check(what, msg, append([]string{"JSONRPCMessage", "JSONRPCError", "JSONRPCErrorResponse"}, defs...)...)
			}

			if !stateless {
				resp, _ := c.call(t, "initialize", map[string]any{
					"protocolVersion": rev,
					"capabilities":    map[string]any{},
					"clientInfo":      map[string]any{"name": "c", "version": "1"},
				})
				checkResult("initialize", resp, "InitializeResult")
				var r struct {
					Result InitializeResult `json:"result"`
				}
				if json.Unmarshal(resp, &r) != nil || r.Result.ProtocolVersion != rev {
					t.Errorf("initialize did not agree on %s: %s", rev, resp)
				}
				c.notify(t, "notifications/initialized", nil)
				resp, _ = c.call(t, "logging/setLevel", map[string]any{"level": "debug"})
				checkResult("logging/setLevel", resp, "EmptyResult")
				srv.AddTool(&Tool{Name: "late"}, func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
				n := c.await(t, "notifications/tools/list_changed")
				check("tools list changed", n, "ToolListChangedNotification", "JSONRPCNotification", "ServerNotification")
			} else {
				resp, _ := c.call(t, "server/discover", map[string]any{"_meta": meta(nil)})
				checkResult("server/discover", resp, "DiscoverResult")
				resp, _ = c.call(t, "tools/list", map[string]any{"_meta": map[string]any{MetaProtocolVersion: "1999-01-01", MetaClientCapabilities: map[string]any{}}})
				checkError("unsupported version", resp, "UnsupportedProtocolVersionError")
			}

			resp, _ := c.call(t, "ping", map[string]any{"_meta": meta(nil)})
			if s.has("PingRequest") {
				checkResult("ping", resp, "EmptyResult")
			} else if !strings.Contains(string(resp), `"error"`) {
				t.Errorf("ping: %s has no ping request, yet the server answers it: %s", rev, resp)
			}

			resp, _ = c.call(t, "tools/list", map[string]any{"_meta": meta(nil)})
			checkResult("tools/list", resp, "ListToolsResult")

			resp, notes := c.call(t, "tools/call", map[string]any{"name": "weather", "arguments": map[string]any{"city": "Paris"}, "_meta": meta(map[string]any{MetaProgressToken: "p1"})})
			checkResult("tools/call", resp, "CallToolResult")
			for _, n := range notes {
				var m struct{ Method string }
				_ = json.Unmarshal(n, &m)
				switch m.Method {
				case "notifications/progress":
					check("progress", n, "ProgressNotification", "JSONRPCNotification")
				case "notifications/message":
					check("log", n, "LoggingMessageNotification", "JSONRPCNotification")
				default:
					check(m.Method, n, "JSONRPCNotification", "ServerNotification")
				}
			}
			if len(notes) < 2 {
				t.Errorf("tools/call: want a progress and a log notification, got %d messages", len(notes))
			}

			resp, _ = c.call(t, "tools/call", map[string]any{"name": "media", "_meta": meta(nil)})
			checkResult("tools/call with every content block", resp, "CallToolResult")

			resp, _ = c.call(t, "tools/call", map[string]any{"name": "weather", "arguments": map[string]any{}, "_meta": meta(nil)})
			checkResult("tools/call with invalid arguments", resp, "CallToolResult")
			resp, _ = c.call(t, "tools/call", map[string]any{"name": "nope", "_meta": meta(nil)})
			checkError("unknown tool", resp)
			resp, _ = c.call(t, "no/such/method", map[string]any{"_meta": meta(nil)})
			checkError("unknown method", resp)
		})
	}
}

type confWeatherIn struct {
	City string `json:"city" jsonschema:"description=The city"`
}

type confWeatherOut struct {
	Temperature float64 `json:"temperature"`
}

// confRawClient speaks raw JSON lines to a Server over a pipe.
type confRawClient struct {
	w     io.Writer
	lines chan []byte
	next  int
}

func startConfServer(t *testing.T) (*confRawClient, *Server) {
	t.Helper()
	icons := []Icon{{Src: "https://example.com/icon.png", MIMEType: "image/png", Sizes: []string{"48x48"}}}
	srv := NewServer(&Implementation{Name: "winbridge-test", Version: "0.0.1", Title: "WinBridge Test", Description: "d", WebsiteURL: "https://example.com", Icons: icons}, &ServerOptions{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	// Every member and block added after 2024-11-05 appears here, so each
	// revision's strict check sees what the gating removes.
	AddTool(srv, &Tool{Name: "media", Description: "Returns every kind of content block"},
		func(ctx context.Context, req *CallToolRequest, _ struct{}) (*CallToolResult, []string, error) {
			return &CallToolResult{Content: []Content{
				&TextContent{Text: "t", Meta: Meta{"k": "v"}, Annotations: &Annotations{Priority: Ptr(0.5), LastModified: "2025-01-01T00:00:00Z"}},
				&ImageContent{Data: "AA==", MIMEType: "image/png", Meta: Meta{"k": "v"}},
				&AudioContent{Data: "AA==", MIMEType: "audio/wav"},
				&ResourceLink{URI: "file:///x", Name: "x", Icons: icons},
				&EmbeddedResource{Resource: &ResourceContents{URI: "file:///y", Text: Ptr("y"), Meta: Meta{"k": "v"}}},
			}}, []string{"not", "an", "object"}, nil
		})
	AddTool(srv, &Tool{Name: "weather", Title: "Weather", Description: "Weather of a city", Icons: icons, Meta: Meta{"k": "v"}, Annotations: &ToolAnnotations{ReadOnlyHint: Ptr(true)}},
		func(ctx context.Context, req *CallToolRequest, in confWeatherIn) (*CallToolResult, confWeatherOut, error) {
			if in.City == "" {
				return nil, confWeatherOut{}, fmt.Errorf("city is empty")
			}
			_ = req.Progress(ctx, 1, 2, "looking")
			_ = req.Log(ctx, LevelInfo, "weather", map[string]any{"city": in.City})
			return nil, confWeatherOut{Temperature: 18.5}, nil
		})
	a, b := net.Pipe()
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
	t.Cleanup(func() {
		a.Close()
		ss.Close()
	})
	c := &confRawClient{w: a, lines: make(chan []byte, 64)}
	go func() {
		r := bufio.NewReader(a)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	return c, srv
}

func (c *confRawClient) send(t *testing.T, msg map[string]any) {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		t.Fatalf("writing: %v", err)
	}
}

func (c *confRawClient) notify(t *testing.T, method string, params any) {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(t, m)
}

// await returns the next message, which must be a notification of method.
func (c *confRawClient) await(t *testing.T, method string) json.RawMessage {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		var m struct {
			Method string `json:"method"`
		}
		if !ok || json.Unmarshal(line, &m) != nil || m.Method != method {
			t.Fatalf("want %s, got %q", method, line)
		}
		return line
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s", method)
	}
	return nil
}

// call sends a request and returns its response and the messages that
// came before it.
func (c *confRawClient) call(t *testing.T, method string, params any) (json.RawMessage, []json.RawMessage) {
	t.Helper()
	c.next++
	id := fmt.Sprintf("req-%d", c.next)
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(t, m)
	var others []json.RawMessage
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("%s: connection closed", method)
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: the server sent invalid JSON %q: %v", method, line, err)
			}
			if string(m.ID) == `"`+id+`"` {
				return json.RawMessage(line), others
			}
			others = append(others, json.RawMessage(line))
		case <-timeout:
			t.Fatalf("%s: no response", method)
		}
	}
}
