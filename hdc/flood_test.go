package hdc_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/winexec"
)

// floodRunner answers a shell call as a device that printed more than the
// output cap: the captured head and tail each cut a character in two,
// and the tail ends with the sentinel of the call's nonce.
type floodRunner struct{}

var nonceRE = regexp.MustCompile(`__WB_RC_([0-9a-f]+)=`)

func (floodRunner) Run(_ context.Context, req *winexec.Request) (*winexec.Result, error) {
	m := nonceRE.FindStringSubmatch(strings.Join(req.Args, " "))
	if m == nil {
		return &winexec.Result{}, nil
	}
	line := strings.Repeat("中文日志", 4) + "\n"
	head := []byte(strings.Repeat(line, 3))
	head = head[:len(head)-2] // cuts the last 志 and its newline
	tail := []byte(strings.Repeat(line, 3) + "\n__WB_RC_" + m[1] + "=0\n")
	tail = tail[1:] // cuts the first 中
	return &winexec.Result{CodePage: 1252, Stdout: winexec.Output{Head: head, Tail: tail, Total: 1 << 20}}, nil
}

// TestShellFloodKeepsEncoding: hdc_shell decoded its whole output at once,
// so when a flood was truncated with a character cut at either end of
// the kept parts, the output no longer read as UTF-8 and every Chinese
// line came back as code page 1252 mojibake. Head and tail decode as the
// untruncated stream would.
func TestShellFloodKeepsEncoding(t *testing.T) {
	c, ctx := serveHDC(t, winexec.Config{Runner: floodRunner{}})
	res, err := c.CallTool(ctx, hdc.ToolShell, map[string]any{"command": "hilog -x", "connectKey": "K1"})
	if err != nil || res.IsError {
		t.Fatalf("hdc_shell = %v %q", err, res.TextOf())
	}
	var out hdc.Result
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Truncated || strings.Count(out.Stdout, "中文日志") < 4 || strings.Contains(out.Stdout, "__WB_RC_") || !strings.Contains(out.Stdout, "bytes truncated]") {
		t.Errorf("truncated flood: %+v", out)
	}
}
