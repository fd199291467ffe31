package hdc_test

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/winexec"
)

// listRunner answers hdc list targets with out and records nothing else.
type listRunner struct{ out string }

func (r listRunner) Run(_ context.Context, req *winexec.Request) (*winexec.Result, error) {
	if len(req.Args) == 2 && req.Args[0] == "list" {
		return &winexec.Result{Stdout: winexec.Output{Head: []byte(r.out), Total: int64(len(r.out))}}, nil
	}
	return &winexec.Result{}, nil
}

// unprintable returns the first rune of s a terminal would act on rather
// than show (escape sequences, bidi overrides), other than a line break.
func unprintable(s string) (rune, bool) {
	for _, r := range s {
		if r != '\n' && !unicode.IsPrint(r) {
			return r, true
		}
	}
	return 0, false
}

// TestRefusalDoesNotEchoControls: a refusal's text is read in a terminal
// or a log. Before, hdc_run echoed the argv and an option's value as
// given, so -s "\x1b]0;...\x07" (or U+202E, which reverses what follows)
// reached the reader's terminal from a refused call. And the keys of the
// several-devices error come from hdc's output, which a hostile device's
// serial number fills.
func TestRefusalDoesNotEchoControls(t *testing.T) {
	for _, launcher := range [][]string{nil, {"wine"}} {
		c, ctx := serveHDC(t, winexec.Config{Runner: listRunner{out: "K1\x1b[2J\nK2\u202e\n"}, Launcher: launcher})
		for _, call := range []map[string]any{
			{"args": []string{"-s", "\x1b]0;owned\x07", "shell", "ls"}},
			{"args": []string{"-e", "\u202egnp.exe", "fport", "ls"}},
			{"args": []string{"-d", "\x1b[31m", "version"}},
			{"args": []string{"install", "\x1b[2Ja.hap"}},
			{"args": []string{"shell", "ls"}},
		} {
			res, err := c.CallTool(ctx, hdc.ToolRun, call)
			if err != nil || !res.IsError {
				t.Errorf("launcher %q: hdc_run %q = %v %q, want refused", launcher, call["args"], err, res.TextOf())
				continue
			}
			if r, ok := unprintable(res.TextOf()); ok {
				t.Errorf("launcher %q: hdc_run %q: the refusal holds %U unescaped: %q", launcher, call["args"], r, res.TextOf())
			}
			if text := res.TextOf(); !strings.Contains(text, "not run") && !strings.Contains(text, "connectKey") && !strings.Contains(text, "non-ASCII") {
				t.Errorf("launcher %q: hdc_run %q: %q does not say why", launcher, call["args"], res.TextOf())
			}
		}
	}
}
