//go:build unix

package winexec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// PowerShell 7's ConvertFrom-Json (Newtonsoft Json.NET, DateParseHandling
// on) turns a JSON string that is wholly an ISO 8601 date, or Microsoft's
// "/Date(ms)/" form, into a DateTime, and [string] of that DateTime is
// "MM/dd/yyyy HH:mm:ss". The "pwsh" mode of the fake applies that
// conversion to every string of a request before reading it, so a request
// whose strings can be read as dates reaches the program changed.
var (
	isoDate = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$`)
	msDate  = regexp.MustCompile(`^/Date\((-?\d+)(?:[+-]\d{4})?\)/$`)
)

// pwshDate is what [string] makes of the DateTime PowerShell 7 reads
// from s, and whether it reads one.
func pwshDate(s string) (string, bool) {
	if m := isoDate.FindStringSubmatch(s); m != nil {
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		t := time.Date(n(1), time.Month(n(2)), n(3), n(4), n(5), n(6), 0, time.UTC)
		return t.Format("01/02/2006 15:04:05"), true
	}
	if m := msDate.FindStringSubmatch(s); m != nil {
		ms, _ := strconv.ParseInt(m[1], 10, 64)
		return time.UnixMilli(ms).UTC().Format("01/02/2006 15:04:05"), true
	}
	return s, false
}

// pwshConvert rewrites every date-looking string of a JSON value.
func pwshConvert(v any) any {
	switch v := v.(type) {
	case string:
		s, _ := pwshDate(v)
		return s
	case []any:
		for i := range v {
			v[i] = pwshConvert(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = pwshConvert(v[k])
		}
	}
	return v
}

// pwshLine is the request line as PowerShell 7 sees it.
func pwshLine(line string) string {
	var v any
	d := json.NewDecoder(bytes.NewReader([]byte(line)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return line
	}
	b, err := json.Marshal(pwshConvert(v))
	if err != nil {
		return line
	}
	return string(b)
}

// The double must change dates, or the test below proves nothing.
func TestPwshDateDouble(t *testing.T) {
	for in, want := range map[string]string{
		"2024-01-01T10:00:00":       "01/01/2024 10:00:00",
		"2024-01-01":                "01/01/2024 00:00:00",
		"2024-01-01T10:00:00.5Z":    "01/01/2024 10:00:00",
		"2024-01-01T10:00:00+02:00": "01/01/2024 10:00:00",
		"/Date(0)/":                 "01/01/1970 00:00:00",
	} {
		if got, ok := pwshDate(in); !ok || got != want {
			t.Errorf("pwshDate(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got := pwshLine(`{"a":["2024-01-01"],"b":"x 2024-01-01"}`); got != `{"a":["01/01/2024 00:00:00"],"b":"x 2024-01-01"}` {
		t.Errorf("pwshLine: %s", got)
	}
}

// TestPowerShellStringsAreNotDates: no string of a request (program,
// command line, working directory, environment) can be reinterpreted by
// the JSON reader of any PowerShell: under PowerShell 7's rules, an
// argument that is a date reaches the program unchanged.
func TestPowerShellStringsAreNotDates(t *testing.T) {
	// A program that prints its argv, whatever the first argument is.
	dir := filepath.Join(t.TempDir(), "2024-01-01")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A bare name, found on PATH, is sent as it is: it is a whole
	// string that PowerShell 7 would read as a date.
	prog := filepath.Join(dir, "2024-01-01")
	script := fmt.Sprintf("#!/bin/sh\nexec '%s' argv \"$@\"\n", nativeHelper(t))
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	ps := fakePSBackend(t, "pwsh")
	host := &PSHost{PowerShell: *fakePSBackend(t, "pwsh")}
	t.Cleanup(func() { host.Close() })
	for name, b := range map[string]Backend{"powershell": ps, "pshost": host} {
		for _, args := range [][]string{
			{"2024-01-01T10:00:00"},
			{"2024-01-01"},
			{"2024-01-01T10:00:00.123+02:00"},
			{"/Date(0)/"},
			{`\/Date(1700000000000)\/`},
		} {
			res, err := b.Run(context.Background(), &Request{Exe: "2024-01-01", Args: args, Cwd: dir})
			if err != nil {
				t.Fatalf("%s %q: %v", name, args, err)
			}
			var got []string
			if err := json.Unmarshal(bytes.TrimSpace(res.Stdout.Bytes()), &got); err != nil {
				t.Fatalf("%s %q: output %q: %v (stderr %q)", name, args, res.Stdout.Bytes(), err, res.Stderr.Bytes())
			}
			if diff := cmp.Diff(args, got); diff != "" {
				t.Errorf("%s: argv changed (-sent +received):\n%s", name, diff)
			}
		}
	}
}

// FuzzWireStringsSurvivePwsh: whatever the strings of a request, the
// bootstrap reads them back unchanged even through PowerShell 7's date
// conversion (pwshLine): no string of the wire form is a date.
func FuzzWireStringsSurvivePwsh(f *testing.F) {
	f.Add("2024-01-01", "2024-01-01T10:00:00", `\\wsl.localhost\d\2024-01-01`, "K=2024-01-01")
	f.Add("/Date(0)/", `\/Date(1700000000000)\/`, "C:\\", "A=/Date(0)/")
	f.Add("cmd.exe", "", "", "")
	f.Fuzz(func(t *testing.T, exe, cmdline, cwd, env string) {
		w := wireRequest{ID: 1, Exe: []byte(exe), CmdLine: []byte(cmdline), Cwd: []byte(cwd), Env: [][]byte{[]byte(env)}, Stdin: []byte{}}
		line, err := json.Marshal(&w)
		if err != nil {
			t.Fatal(err)
		}
		var got wireRequest
		if err := json.Unmarshal([]byte(pwshLine(string(line))), &got); err != nil {
			t.Fatal(err)
		}
		if string(got.Exe) != exe || string(got.CmdLine) != cmdline || string(got.Cwd) != cwd || len(got.Env) != 1 || string(got.Env[0]) != env {
			t.Fatalf("changed in transit: %q %q %q %q -> %q %q %q %q", exe, cmdline, cwd, env, got.Exe, got.CmdLine, got.Cwd, got.Env)
		}
	})
}
