package mcp_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

func TestAddToolRejectsNamesOutsideTheSpec(t *testing.T) {
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	typed := func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}
	for _, name := range []string{
		"", "has space", "slash/name", "colon:name", "ünïcode", "emoji😀", "tab\tname", "nul\x00name",
		"bad\xffutf8", strings.Repeat("a", mcp.MaxToolNameLen+1), "quote\"name", "new\nline",
	} {
		for kind, add := range map[string]func(){
			"untyped": func() { mcp.NewServer(&mcp.Implementation{Name: "s"}, nil).AddTool(&mcp.Tool{Name: name}, h) },
			"typed":   func() { mcp.AddTool(mcp.NewServer(&mcp.Implementation{Name: "s"}, nil), &mcp.Tool{Name: name}, typed) },
		} {
			func() {
				defer func() {
					r := recover()
					if s, _ := r.(string); !strings.HasPrefix(s, "mcp: AddTool: ") {
						t.Errorf("%s AddTool(%q): panic %v, want a message starting mcp: AddTool:", kind, name, r)
					}
				}()
				add()
			}()
		}
	}
}

func TestAddToolWarnsOfNamesHostsReject(t *testing.T) {
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		warn bool
	}{
		{"win_exec", false},
		{"a-b_C9", false},
		{strings.Repeat("x", 64), false},
		{"win.exec", true},
		{strings.Repeat("x", 65), true},
		{strings.Repeat("y", mcp.MaxToolNameLen), true},
	} {
		var log bytes.Buffer
		srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, &mcp.ServerOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
		srv.AddTool(&mcp.Tool{Name: tc.name}, h)
		warned := strings.Contains(log.String(), "level=WARN") && strings.Contains(log.String(), tc.name)
		if warned != tc.warn {
			t.Errorf("%q: warned %v, want %v; log %q", tc.name, warned, tc.warn, log.String())
		}
		if got := mcp.PortableToolName(tc.name); got == tc.warn {
			t.Errorf("PortableToolName(%q) = %v", tc.name, got)
		}
	}
}

func TestAddToolRejectsInvalidUTF8Descriptions(t *testing.T) {
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	for _, tool := range []*mcp.Tool{{Name: "a", Description: "cut \xe4\xb8"}, {Name: "b", Title: "\xff"}} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, "not valid UTF-8") {
					t.Errorf("%+v: panic %q", tool, r)
				}
			}()
			mcp.NewServer(&mcp.Implementation{Name: "s"}, nil).AddTool(tool, h)
		}()
	}
}
