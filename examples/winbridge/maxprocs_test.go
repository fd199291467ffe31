package main

import (
	"io"
	"testing"

	"github.com/winbridge/winbridge/winexec"
)

// TestMaxProcessesSetting: the executor-wide bound on programs running at
// once defaults to winexec.DefaultMaxProcesses, is read from
// WINBRIDGE_MAX_PROCESSES, and -max-processes wins; out of range is refused.
func TestMaxProcessesSetting(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "WINBRIDGE_MAX_PROCESSES" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		args []string
		env  string
		want int
	}{
		{nil, "", winexec.DefaultMaxProcesses},
		{nil, "3", 3},
		{[]string{"-max-processes", "5"}, "3", 5},
		{[]string{"-max-processes", "5"}, "junk", 5},
	} {
		s, err := parseSettings(tc.args, env(tc.env), io.Discard)
		if err != nil || s.cfg.MaxProcesses != tc.want {
			t.Errorf("%q with %q: %+v %v, want %d", tc.args, tc.env, s, err, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		env  string
	}{{[]string{"-max-processes", "0"}, ""}, {[]string{"-max-processes", "2000"}, ""}, {nil, "0"}} {
		if _, err := parseSettings(tc.args, env(tc.env), io.Discard); err == nil {
			t.Errorf("%q with %q accepted", tc.args, tc.env)
		}
	}
}
