package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// bridgeClient starts the bridge's server in process with args and returns
// a client connected to it.
func bridgeClient(t *testing.T, args []string, env map[string]string) *client.Client {
	t.Helper()
	s, err := parseSettings(args, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := winexec.New(s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	srv := newServer(s, ex, slog.New(slog.DiscardHandler))
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}

// defaultNames are the bridge's tools as listed by default.
var defaultNames = []string{"hdc_file_recv", "hdc_file_send", "hdc_hilog", "hdc_install", "hdc_list_targets",
	"hdc_run", "hdc_shell", "hdc_uninstall", "path_win_to_wsl", "path_wsl_to_win", "win_exec"}

// The bridge lists underscore names by default; -dotted-names and
// WINBRIDGE_DOTTED_NAMES=1 bring back the dotted spelling, and each
// spelling calls. -snake-case, the old opt-in, is accepted and ignored.
func TestToolNamesBothSpellings(t *testing.T) {
	dottedNames := []string{"hdc.file_recv", "hdc.file_send", "hdc.hilog", "hdc.install", "hdc.list_targets",
		"hdc.run", "hdc.shell", "hdc.uninstall", "path.win_to_wsl", "path.wsl_to_win", "win.exec"}
	base := []string{"-backend", "local", "-allow-exe", "printf"}
	for _, tc := range []struct {
		name   string
		args   []string
		env    map[string]string
		dotted bool
	}{
		{"default", base, nil, false},
		{"snake-case ignored", append(slices.Clone(base), "-snake-case"), nil, false},
		{"flag", append(slices.Clone(base), "-dotted-names"), nil, true},
		{"env", base, map[string]string{"WINBRIDGE_DOTTED_NAMES": "1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := bridgeClient(t, tc.args, tc.env)
			got := toolNames(t, c)
			slices.Sort(got)
			want, exec := defaultNames, "win_exec"
			if tc.dotted {
				want, exec = dottedNames, "win.exec"
			}
			if !slices.Equal(got, want) {
				t.Fatalf("tools %q, want %q", got, want)
			}
			res, err := c.CallTool(context.Background(), exec, map[string]any{"exe": "printf", "args": []string{"named"}})
			if err != nil || res.IsError || !strings.Contains(res.TextOf(), "named") {
				t.Fatalf("%s: %v %+v", exec, err, res)
			}
			if in := c.Instructions(); !strings.Contains(in, exec+" takes") {
				t.Errorf("the instructions name another spelling: %q", in)
			}
		})
	}
}
