package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Requirement: initialize, tools/list and an unknown method over /mcp,
// each echoed on the console with method, path, JSON-RPC method, id,
// status and outcome.
func TestInitializeListUnknownMethod(t *testing.T) {
	f := newFake(t)
	h := startServer(t, f.cfg)
	c := connect(t, h.url)
	h.echo.waitLine(t, "initialize", func(l string) bool {
		return strings.Contains(l, `http="POST /mcp"`) && strings.Contains(l, "rpc=initialize") &&
			strings.Contains(l, "id=1") && strings.Contains(l, "status=200") && strings.Contains(l, "outcome=result")
	})

	resp := c.call("tools/list", nil)
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if resp.Error != nil || json.Unmarshal(resp.Result, &list) != nil || len(list.Tools) != 1 || list.Tools[0].Name != ToolName {
		t.Fatalf("tools/list: %s %+v", resp.Result, resp.Error)
	}
	var schema struct {
		Properties map[string]struct{ Type string } `json:"properties"`
	}
	if json.Unmarshal(list.Tools[0].InputSchema, &schema) != nil || schema.Properties["command"].Type != "string" {
		t.Errorf("input schema: %s", list.Tools[0].InputSchema)
	}
	h.echo.waitLine(t, "tools/list", func(l string) bool {
		return strings.Contains(l, "rpc=tools/list") && strings.Contains(l, "outcome=result")
	})

	resp = c.call("windbg/nonsense", map[string]any{})
	if resp.Error == nil || resp.Error.Code != -32601 {
		t.Fatalf("unknown method: want error -32601, got %s %+v", resp.Result, resp.Error)
	}
	h.echo.waitLine(t, "the unknown method", func(l string) bool {
		return strings.Contains(l, "rpc=windbg/nonsense") && strings.Contains(l, `outcome="error -32601"`)
	})
	if got := f.commands(t); len(got) != 0 {
		t.Errorf("the fake received commands %q; want none", got)
	}
}

// Requirement: windbg_eval runs the command and returns its output,
// prompts and markers stripped; the call and its result are echoed.
func TestEvalSuccess(t *testing.T) {
	for _, echoInput := range []bool{false, true} {
		name := "plain"
		var env []string
		if echoInput {
			name, env = "console-echo", []string{"FAKECDB_ECHO=1"}
		}
		t.Run(name, func(t *testing.T) {
			f := newFake(t, env...)
			h := startServer(t, f.cfg)
			c := connect(t, h.url)
			for cmd, want := range map[string]string{
				"k":  "02 000000a1`2f9ff760 00007ffb`4d0a7034 app!main+0x42",
				"lm": "ntdll      (pdb symbols)",
				"r":  "rip=00007ffb4ee5d3f4",
			} {
				res := c.eval(map[string]any{"command": cmd})
				text := res.Content[0].Text
				if res.IsError || !strings.Contains(text, want) {
					t.Errorf("%s: isError=%v, text lacks %q:\n%s", cmd, res.IsError, want, text)
				}
				for _, bad := range []string{"0:000>", "WINDBG_MCP_DONE", "Microsoft (R) Windows Debugger"} {
					if strings.Contains(text, bad) {
						t.Errorf("%s: output holds %q:\n%s", cmd, bad, text)
					}
				}
				if strings.HasPrefix(text, cmd+"\n") {
					t.Errorf("%s: the echoed command was not stripped:\n%s", cmd, text)
				}
			}
			if got := f.commands(t); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"k", "lm", "r"}) {
				t.Errorf("the fake received %q; want k, lm and r once each", got)
			}
			h.echo.waitLine(t, "a successful tools/call", func(l string) bool {
				return strings.Contains(l, "rpc=tools/call") && strings.Contains(l, "status=200") &&
					strings.Contains(l, "outcome=result") && strings.Contains(l, "ntdll")
			})
		})
	}
}

// Requirement: a missing or empty command (and one that is not one line)
// is a JSON-RPC invalid-params error, echoed as such, and nothing is sent
// to cdb.
func TestInvalidCommandRunsNothing(t *testing.T) {
	f := newFake(t)
	h := startServer(t, f.cfg)
	c := connect(t, h.url)
	before := f.events(t)
	for _, args := range []map[string]any{
		{},                      // missing
		{"command": ""},         // empty
		{"command": "  \t "},    // blank: cdb would repeat the last command
		{"command": "k\nq"},     // a second line
		{"command": "k\r.kill"}, // a carriage return
		{"command": "\x02"},     // CTRL+B ends a cdb client
	} {
		resp := c.call("tools/call", map[string]any{"name": ToolName, "arguments": args})
		if resp.Error == nil || resp.Error.Code != -32602 {
			t.Errorf("%q: want JSON-RPC error -32602, got result %s error %+v", args, resp.Result, resp.Error)
		}
	}
	if after := f.events(t); !slices.Equal(before, after) {
		t.Fatalf("the fake saw new events after invalid calls:\nbefore %q\nafter  %q", before, after)
	}
	h.echo.waitLine(t, "an invalid-params error", func(l string) bool {
		return strings.Contains(l, "rpc=tools/call") && strings.Contains(l, `outcome="error -32602"`) && strings.Contains(l, "status=200")
	})
	// The session is untouched: the next command is the first it sees.
	if res := c.eval(map[string]any{"command": "k"}); res.IsError {
		t.Fatalf("k after invalid calls: %s", res.Content[0].Text)
	}
	if got := f.commands(t); !slices.Equal(got, []string{"k"}) {
		t.Errorf("the fake received %q; want only k", got)
	}
}

// Requirement: the echo cuts long bodies with a mark and masks secrets,
// and never changes the response: the full output reaches the client.
func TestEchoTruncatesAndMasks(t *testing.T) {
	f := newFake(t)
	h := startServer(t, f.cfg)
	c := connect(t, h.url)
	res := c.eval(map[string]any{"command": "!analyze -v"})
	text := res.Content[0].Text
	if res.IsError || len(text) < 4*defaultEchoMaxText || !strings.Contains(text, "app!frame_119+0x77") || !strings.HasSuffix(text, "analyze: end of analysis") {
		t.Fatalf("!analyze -v: isError=%v, %d bytes; want the whole output (ending with the end-of-analysis line)", res.IsError, len(text))
	}
	line := h.echo.waitLine(t, "the !analyze call", func(l string) bool {
		return strings.Contains(l, "rpc=tools/call") && strings.Contains(l, "Exception Analysis")
	})
	if !strings.Contains(line, "…[truncated ") {
		t.Errorf("the echo of a long body is not cut with a mark:\n%s", line)
	}
	if strings.Contains(line, "end of analysis") {
		t.Errorf("the echo shows the end of a long body:\n%s", line)
	}
	all := h.echo.String()
	if strings.Contains(all, "s3cret") {
		t.Errorf("the echo leaked the Authorization header:\n%s", all)
	}
	if !strings.Contains(line, "Authorization: [masked]") {
		t.Errorf("the echo does not show the Authorization header masked:\n%s", line)
	}
}
