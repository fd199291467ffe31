package mcp_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// directSession connects a session whose stream nobody reads from, for
// requests served with ServeDirect.
func directSession(t *testing.T, srv *mcp.Server) *mcp.ServerSession {
	t.Helper()
	a, b := net.Pipe()
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
	t.Cleanup(func() {
		a.Close()
		<-ss.Done()
	})
	return ss
}

// serveDirect runs one message and returns its response.
func serveDirect(t *testing.T, ss *mcp.ServerSession, msg string) string {
	t.Helper()
	var got string
	if !ss.ServeDirect(context.Background(), []byte(msg), func(b []byte) { got = string(b) }) {
		t.Fatalf("ServeDirect refused %s", msg)
	}
	return got
}

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

// A member that encoding/json would decode into a field whose name it
// matches only ignoring case is refused: the tool's schema validated the
// exact names, so such a member ran unvalidated. Before, the handler got
// "../secret" past an enum of "safe.txt".
func TestTypedToolRefusesCaseFoldedMembers(t *testing.T) {
	type item struct {
		Mode string `json:"mode"`
	}
	type in struct {
		Path  string          `json:"path"`
		Opts  *item           `json:"opts"`
		Items []item          `json:"items"`
		ByKey map[string]item `json:"byKey"`
		Kind  string          // no tag: named Kind
	}
	safe := `{"type":"string","enum":["safe.txt","ok"]}`
	strict := `{"type":"object","properties":{"mode":` + safe + `}}`
	schema := `{"type":"object","properties":{"path":` + safe + `,"Kind":` + safe + `,"opts":` + strict +
		`,"items":{"type":"array","items":` + strict + `},"byKey":{"type":"object","additionalProperties":` + strict + `}}}`
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var ran []in
	mcp.AddTool(srv, &mcp.Tool{Name: "read", InputSchema: json.RawMessage(schema)},
		func(_ context.Context, _ *mcp.CallToolRequest, v in) (*mcp.CallToolResult, any, error) {
			ran = append(ran, v)
			return nil, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "inferred"}, func(_ context.Context, _ *mcp.CallToolRequest, v in) (*mcp.CallToolResult, any, error) {
		ran = append(ran, v)
		return nil, nil, nil
	})
	ss := directSession(t, srv)
	call := func(tool, args string) string {
		return serveDirect(t, ss, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`,`+statelessMeta+`}}`)
	}
	for _, args := range []string{
		`{"path":"safe.txt","PATH":"../secret"}`,
		`{"Path":"../secret"}`,
		`{"path":"safe.txt","P\u0041TH":"../secret"}`,
		`{"kind":"../secret"}`,
		`{"\u212aind":"../secret"}`, // KELVIN SIGN folds to k
		`{"opts":{"mode":"ok","Mode":"rm -rf"}}`,
		`{"items":[{"mode":"ok"},{"MODE":"rm -rf"}]}`,
		`{"byKey":{"a":{"mode":"ok","mOde":"rm -rf"}}}`,
	} {
		for _, tool := range []string{"read", "inferred"} {
			ran = nil
			got := call(tool, args)
			if len(ran) != 0 || !strings.Contains(got, `"isError":true`) {
				t.Errorf("%s %s: ran with %+v, answered %s", tool, args, ran, got)
			}
		}
	}
	// Exact names, and members that match no field, still pass.
	ran = nil
	got := call("read", `{"path":"safe.txt","Kind":"ok","opts":{"mode":"ok"},"items":[{"mode":"ok"}],"byKey":{"MODE":{"mode":"ok"}},"other":1}`)
	if len(ran) != 1 || ran[0].Path != "safe.txt" || ran[0].Kind != "ok" || ran[0].Opts.Mode != "ok" || ran[0].ByKey["MODE"].Mode != "ok" {
		t.Fatalf("exact names: ran with %+v, answered %s", ran, got)
	}
}
