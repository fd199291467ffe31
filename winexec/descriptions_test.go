package winexec_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/schematest"
	"github.com/winbridge/winbridge/winexec"
)

// Every listed tool carries its description and each field's description
// whole, as written in the source.
func TestToolDescriptionsWhole(t *testing.T) {
	types := map[string][2]reflect.Type{
		winexec.ToolExec:     {reflect.TypeFor[winexec.ExecInput](), reflect.TypeFor[winexec.ExecOutput]()},
		winexec.ToolWSLToWin: {reflect.TypeFor[winexec.PathInput](), reflect.TypeFor[winexec.PathOutput]()},
		winexec.ToolWinToWSL: {reflect.TypeFor[winexec.PathInput](), reflect.TypeFor[winexec.PathOutput]()},
	}
	tools, err := toolClient(t, nil).ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != len(types) {
		t.Errorf("%d tools listed, %d checked", len(tools), len(types))
	}
	for _, tl := range tools {
		io, ok := types[tl.Name]
		if !ok {
			t.Errorf("tool %s: add its types to this test", tl.Name)
			continue
		}
		if bad := schematest.Tool(tl, io[0], io[1]); len(bad) > 0 {
			t.Error(strings.Join(bad, "\n"))
		}
	}
}
