package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// secret is sent in the Authorization header of every test request; the
// echo must never show it.
const secret = "Bearer s3cret-token-do-not-log"

// rpc is a bare Streamable HTTP client for a legacy (2025-11-25) session,
// so tests see the JSON-RPC answers exactly as sent.
type rpc struct {
	t       *testing.T
	url     string
	session string
	nextID  int
}

// rpcResponse is one JSON-RPC response.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// callResult is the part of a tools/call result the tests read.
type callResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// connect initializes a session.
func connect(t *testing.T, url string) *rpc {
	t.Helper()
	c := &rpc{t: t, url: url}
	resp, hdr := c.do("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "windbg-test", "version": "0"},
	}, true)
	if resp.Error != nil {
		t.Fatalf("initialize: %+v", resp.Error)
	}
	c.session = hdr.Get("Mcp-Session-Id")
	if c.session == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	c.do("notifications/initialized", nil, false)
	return c
}

// call sends a request and returns its response.
func (c *rpc) call(method string, params any) *rpcResponse {
	c.t.Helper()
	resp, _ := c.do(method, params, true)
	return resp
}

// eval calls the tool and returns its result; a JSON-RPC error fails.
func (c *rpc) eval(args any) *callResult {
	c.t.Helper()
	resp := c.call("tools/call", map[string]any{"name": ToolName, "arguments": args})
	if resp.Error != nil {
		c.t.Fatalf("tools/call %v: JSON-RPC error %+v", args, resp.Error)
	}
	var res callResult
	if err := json.Unmarshal(resp.Result, &res); err != nil || len(res.Content) != 1 {
		c.t.Fatalf("tools/call %v: result %s: %v", args, resp.Result, err)
	}
	return &res
}

func (c *rpc) do(method string, params any, request bool) (*rpcResponse, http.Header) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	id := ""
	if request {
		c.nextID++
		id = strconv.Itoa(c.nextID)
		msg["id"] = c.nextID
	}
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", secret)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	hresp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(hresp.Body)
	if err != nil {
		c.t.Fatalf("%s: reading the response: %v", method, err)
	}
	if !request {
		if hresp.StatusCode != http.StatusAccepted {
			c.t.Fatalf("%s: status %d: %s", method, hresp.StatusCode, data)
		}
		return nil, hresp.Header
	}
	if hresp.StatusCode != http.StatusOK {
		c.t.Fatalf("%s: status %d: %s", method, hresp.StatusCode, data)
	}
	msgs := [][]byte{data}
	if strings.HasPrefix(hresp.Header.Get("Content-Type"), "text/event-stream") {
		msgs = nil
		for line := range strings.Lines(string(data)) {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data:"); ok && strings.TrimSpace(d) != "" {
				msgs = append(msgs, []byte(d))
			}
		}
	}
	for _, m := range msgs {
		var r rpcResponse
		if json.Unmarshal(m, &r) == nil && string(r.ID) == id {
			return &r, hresp.Header
		}
	}
	c.t.Fatalf("%s: no response with id %s in %s", method, id, data)
	return nil, nil
}
