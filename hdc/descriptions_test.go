package hdc_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/internal/schematest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// listTools lists the hdc tools as a client sees them; nothing runs.
func listTools(t *testing.T, opts *hdc.Options) []*mcp.Tool {
	t.Helper()
	ex, err := winexec.New(winexec.Config{Backend: winexec.BackendLocal, Policy: winexec.Policy{AllowExe: []string{"hdc"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	srv := mcp.NewServer(&mcp.Implementation{Name: "hdc-test", Version: "1"}, nil)
	hdc.AddTools(srv, ex, opts)
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// Every listed tool carries its description and each field's description
// whole, as written in the source: none is cut at a comma.
func TestToolDescriptionsWhole(t *testing.T) {
	result := reflect.TypeFor[hdc.Result]()
	types := map[string]reflect.Type{
		hdc.ToolRun:         reflect.TypeFor[hdc.RunInput](),
		hdc.ToolShell:       reflect.TypeFor[hdc.ShellInput](),
		hdc.ToolListTargets: reflect.TypeFor[hdc.ListTargetsInput](),
		hdc.ToolFileSend:    reflect.TypeFor[hdc.FileInput](),
		hdc.ToolFileRecv:    reflect.TypeFor[hdc.FileInput](),
		hdc.ToolHilog:       reflect.TypeFor[hdc.HilogInput](),
		hdc.ToolInstall:     reflect.TypeFor[hdc.InstallInput](),
		hdc.ToolUninstall:   reflect.TypeFor[hdc.UninstallInput](),
	}
	tools := listTools(t, nil)
	if len(tools) != len(types) {
		t.Errorf("%d tools listed, %d checked", len(tools), len(types))
	}
	for _, tl := range tools {
		in, ok := types[tl.Name]
		if !ok {
			t.Errorf("tool %s: add its types to this test", tl.Name)
			continue
		}
		if bad := schematest.Tool(tl, in, result); len(bad) > 0 {
			t.Error(strings.Join(bad, "\n"))
		}
	}
	// The run tool points to the shell tool under the name it is listed by.
	for _, dotted := range []bool{false, true} {
		shell := (&hdc.Options{DottedNames: dotted}).ToolName(hdc.ToolShell)
		for _, tl := range listTools(t, &hdc.Options{DottedNames: dotted}) {
			if strings.HasSuffix(tl.Name, "run") && !strings.Contains(tl.Description, "Prefer "+shell+" ") {
				t.Errorf("%s names another spelling of %s: %q", tl.Name, shell, tl.Description)
			}
		}
	}
}
