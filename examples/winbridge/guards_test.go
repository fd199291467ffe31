package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -check prints the guards in effect, following the settings.
func TestCheckPrintsGuards(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{
			"guards (docs/SECURITY.md):",
			"programs:    hdc.exe",
			"environment: none may be set",
			"secrets:     variables whose name marks a credential",
			"at most 10m0s per call",
			"need confirm:true",
			"win_exec, path_*, hdc_*",
			"256 requests (67108864 bytes) in flight",
			"1024 subscriptions",
			"http:        off (stdio)",
		}},
		{[]string{"-allow-exe", "*", "-allow-env", "FOO", "-max-timeout", "2m", "-hdc=false", "-dotted-names", "-http", "127.0.0.1:0", "-pass-env", "GITHUB_TOKEN"}, []string{
			"ANY valid program (ALLOW_EXE=*)",
			"environment: FOO;",
			"passed anyway (-pass-env): GITHUB_TOKEN;",
			"at most 2m0s per call",
			"hdc:         tools off",
			"dotted (win.exec, ...)",
			"127.0.0.1:0: loopback only, no token",
		}},
	} {
		s, err := parseSettings(tc.args, func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		check(s, &out)
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q: -check output lacks %q:\n%s", tc.args, w, out.String())
			}
		}
	}
}

// The job helper comes from WINBRIDGE_JOB_HELPER or -job-helper (which
// wins), must be an absolute path, and -check says whether process trees
// are contained and whether the helper is there.
func TestJobHelperSettingAndCheck(t *testing.T) {
	helper := filepath.Join(t.TempDir(), "jobrun.exe")
	if err := os.WriteFile(helper, []byte("MZ"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "WINBRIDGE_JOB_HELPER" {
				return v
			}
			return ""
		}
	}
	s, err := parseSettings([]string{"-backend", "direct", "-launcher", "wine"}, env(helper), io.Discard)
	if err != nil || s.cfg.JobHelper != helper {
		t.Fatalf("from the environment: %v %q", err, s.cfg.JobHelper)
	}
	s, err = parseSettings([]string{"-job-helper", helper}, env("jobrun.exe"), io.Discard)
	if err != nil || s.cfg.JobHelper != helper {
		t.Fatalf("the flag over a bad variable: %v %q", err, s.cfg.JobHelper)
	}
	if _, err := parseSettings([]string{"-job-helper", "jobrun.exe"}, env(""), io.Discard); err == nil || !strings.Contains(err.Error(), "absolute path") {
		t.Fatalf("a bare name: %v", err)
	}
	if _, err := parseSettings(nil, env("jobrun.exe"), io.Discard); err == nil || !strings.Contains(err.Error(), "WINBRIDGE_JOB_HELPER") {
		t.Fatalf("a bare name in the environment: %v", err)
	}

	for _, tc := range []struct {
		args    []string
		want    string
		problem string
	}{
		{[]string{"-backend", "direct", "-launcher", "sh", "-job-helper", helper}, "trees:       contained by a kill-on-close Windows Job Object (job helper " + helper, ""},
		{[]string{"-backend", "direct", "-launcher", "sh"}, "trees:       NOT contained by a job", ""},
		{[]string{"-backend", "direct", "-launcher", "sh", "-job-helper", helper + ".missing"}, "job helper", "is not a file"},
		{[]string{"-backend", "local", "-job-helper", helper}, "trees:", "only direct does"},
		{[]string{"-backend", "pshost"}, "trees:       contained by a kill-on-close Windows Job Object per call (made by the PowerShell bootstrap", ""},
	} {
		s, err := parseSettings(append(tc.args, "-hdc=false"), env(""), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		check(s, &out)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%q: -check output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
		hasProblem := strings.Contains(out.String(), "problem:") && strings.Contains(out.String(), tc.problem)
		if tc.problem != "" && !hasProblem {
			t.Errorf("%q: no problem %q reported:\n%s", tc.args, tc.problem, out.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if tc.problem == "" && strings.HasPrefix(line, "problem:") && strings.Contains(line, "job") {
				t.Errorf("%q: a problem with the helper reported:\n%s", tc.args, out.String())
			}
		}
	}
}
