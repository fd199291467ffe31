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

// secret is sent in the Authorization header and in a params member of
// test requests; the echo must never show it.
const secret = "s3cret-token-do-not-log"

// rpc is a bare Streamable HTTP client (protocol 2025-11-25), so tests
// see the JSON-RPC answers exactly as sent.
type rpc struct {
	t       testing.TB
	url     string
	session string
	nextID  int
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type callResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// connect initializes a session and returns the initialize result.
func connect(t testing.TB, url string) (*rpc, json.RawMessage) {
	t.Helper()
	c := &rpc{t: t, url: url}
	resp, hdr := c.do("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "windbg-ext-test", "version": "0"},
	}, true)
	if resp.Error != nil {
		t.Fatalf("initialize: %+v", resp.Error)
	}
	c.session = hdr.Get("Mcp-Session-Id")
	if c.session == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	c.do("notifications/initialized", nil, false)
	return c, resp.Result
}

func (c *rpc) call(method string, params any) *rpcResponse {
	c.t.Helper()
	resp, _ := c.do(method, params, true)
	return resp
}

// eval calls tool and returns its result; a JSON-RPC error fails.
func (c *rpc) eval(tool string, args any) *callResult {
	c.t.Helper()
	resp := c.call("tools/call", map[string]any{"name": tool, "arguments": args})
	if resp.Error != nil {
		c.t.Fatalf("tools/call %v: JSON-RPC error %+v", args, resp.Error)
	}
	var res callResult
	if err := json.Unmarshal(resp.Result, &res); err != nil || len(res.Content) != 1 {
		c.t.Fatalf("tools/call %v: result %s: %v", args, resp.Result, err)
	}
	return &res
}

// toolNames lists the tools.
func (c *rpc) toolNames() []string {
	c.t.Helper()
	resp := c.call("tools/list", nil)
	if resp.Error != nil {
		c.t.Fatalf("tools/list: %+v", resp.Error)
	}
	var r struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
	}
	return names
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
	req.Header.Set("Authorization", "Bearer "+secret)
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

// checkMCP runs the specification's scenarios against a served /mcp
// whose engine knows k and hang: initialize and tools/list declare tool,
// an unknown method is -32601, a missing or empty command and a
// session-ending one are -32602, a timeout interrupts. executed returns
// the commands the engine ran so far.
func checkMCP(t *testing.T, url, tool string, executed func() []string) {
	t.Helper()
	c, init := connect(t, url)
	var ir struct {
		Capabilities struct {
			Tools *json.RawMessage `json:"tools"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &ir); err != nil || ir.Capabilities.Tools == nil {
		t.Errorf("initialize does not declare tools: %s", init)
	}
	if names := c.toolNames(); len(names) != 1 || names[0] != tool {
		t.Errorf("tools/list: %q, want [%s]", names, tool)
	}
	if r := c.call("no/such/method", nil); r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("unknown method: %+v", r)
	}
	res := c.eval(tool, map[string]any{"command": "k", "api_key": secret})
	if res.IsError || !strings.Contains(res.Content[0].Text, "app!main+0x42") {
		t.Errorf("k: %+v", res)
	}
	before := len(executed())
	for _, args := range []map[string]any{{}, {"command": ""}, {"command": "  "}, {"command": "k\nq"}, {"command": "q"}, {"command": "r; .detach"}, {"command": `bp app!main "qd"`}} {
		r := c.call("tools/call", map[string]any{"name": tool, "arguments": args})
		if r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("%v: %+v, want -32602", args, r)
		}
	}
	if after := executed(); len(after) != before {
		t.Errorf("refused commands ran: %q", after[before:])
	}
}
