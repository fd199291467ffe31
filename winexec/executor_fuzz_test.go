package winexec

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// fuzzHDCExe is the hdc program of FuzzExecutorDecision's executor,
// configured and reserved as the hdc tools do.
const fuzzHDCExe = `C:\sdk\hdc.exe`

// FuzzExecutorDecision fuzzes win_exec's whole decision (runExec: the
// reservation, the allowlist, the cmd.exe rule, the batch rule, cwd and
// environment) on a request, rather than each check alone, against what
// SECURITY.md and WINDOWS.md promise of anything the backend receives:
//
//   - no program of the reserved file name runs, whatever was asked;
//   - the program is valid, reaches Windows as itself, is the program
//     asked for, and is the listed entry (or the configured HDC_EXE)
//     unless "*" allowed it;
//   - the working directory is absolute, not a share other than WSL's or
//     a device path, and canonical;
//   - environment names are valid, asked for, and a code-loading name
//     (or one of starSparedTraffic: proxies, CA bundles, cmd.exe's
//     dynamic variables, TEMP) only when listed by name;
//   - cmd.exe with several arguments after /C hands them to the program
//     unchanged, nothing expanded and nothing live, in Windows' and wine's
//     order (echo: its text, in Windows' order, as CmdEscape promises);
//     one argument after /C is the command as given;
//   - a batch file gets no argument cmd.exe would act on.
//
// entries and args hold NUL-separated lists (NUL cannot be in either).
// Seeds in testdata/fuzz/FuzzExecutorDecision.
func FuzzExecutorDecision(f *testing.F) {
	f.Add("hdc.exe", "hdc.exe", "kill", "", "")
	f.Add("cmd.exe", "cmd.exe", "/C\x00echo\x00a&b", "", "")
	f.Fuzz(func(t *testing.T, entries, exe, argList, cwd, envName string) {
		rec := &recordingBackend{}
		e, err := New(Config{Runner: rec, HDCExe: fuzzHDCExe, Policy: Policy{
			AllowExe: strings.Split(entries, "\x00"),
			AllowEnv: []string{"*", "PATH"},
		}})
		if err != nil {
			return
		}
		if err := e.Reserve(fuzzHDCExe, "hdc_run"); err != nil {
			t.Fatal(err)
		}
		var args []string
		if argList != "" {
			args = strings.Split(argList, "\x00")
		}
		req := Request{Exe: exe, Args: args, Cwd: cwd}
		if envName != "" {
			req.Env = map[string]string{envName: "v"}
		}
		_, err = e.runExec(context.Background(), req)
		if len(rec.reqs) == 0 {
			if err == nil {
				t.Fatalf("%+v: nothing ran and no error", req)
			}
			return
		}
		if err != nil || len(rec.reqs) != 1 {
			t.Fatalf("%+v: ran %d times, err %v", req, len(rec.reqs), err)
		}
		got := rec.reqs[0]

		// The reservation.
		for _, n := range []string{exe, got.Exe} {
			if p, err := parseProgram(n); err == nil && baseKey(p) == "n:hdc" {
				t.Fatalf("%+v: the reserved hdc ran as %q", req, got.Exe)
			}
		}

		// The program.
		checkRunnable(t, got.Exe)
		asked, err := parseProgram(exe)
		if err != nil {
			t.Fatalf("invalid exe %q ran as %q", exe, got.Exe)
		}
		ran, _ := parseProgram(got.Exe)
		if ran.key != asked.key {
			t.Fatalf("exe %q (key %q) ran as %q (key %q)", exe, asked.key, got.Exe, ran.key)
		}
		if !slices.ContainsFunc(strings.Split(entries, "\x00"), func(entry string) bool { return allowedAs(entry, asked, ran) }) {
			t.Fatalf("entries %q: exe %q ran as %q, which no entry allows", entries, exe, got.Exe)
		}

		// The working directory.
		if (got.Cwd == "") != (cwd == "") {
			t.Fatalf("cwd %q reached the backend as %q", cwd, got.Cwd)
		}
		if got.Cwd != "" {
			d, err := parseDir(got.Cwd)
			if err != nil || d.text != got.Cwd || d.kind != kindDrive && d.kind != kindLinux && !(d.kind == kindUNC && isWSLShare(d.text)) {
				t.Fatalf("cwd %q reached the backend as %q (%+v, %v)", cwd, got.Cwd, d, err)
			}
		}

		// The environment.
		for k := range got.Env {
			spared := launcherEnv(k) || slices.ContainsFunc(starSparedTraffic, func(s string) bool { return strings.EqualFold(s, k) })
			if _, ok := req.Env[k]; !ok || checkEnvName(k) != nil || spared && !strings.EqualFold(k, "PATH") {
				t.Fatalf("env %q reached the backend", k)
			}
		}

		// The cmd.exe rule.
		if isCmdExe(exe) != isCmdExe(got.Exe) {
			t.Fatalf("exe %q ran as %q", exe, got.Exe)
		}
		if got.CommandLine != "" {
			if !isCmdExe(got.Exe) || got.Args != nil {
				t.Fatalf("%+v: command line %q for %q with args %q", req, got.CommandLine, got.Exe, got.Args)
			}
			checkCmdDecision(t, args, got.CommandLine, got.Env)
		} else if isCmdExe(got.Exe) && slices.ContainsFunc(args, func(a string) bool { return strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k") }) {
			t.Fatalf("cmd.exe %q ran without the rule's command line", args)
		} else if !slices.Equal(got.Args, args) {
			t.Fatalf("args %q reached the backend as %q", args, got.Args)
		}

		// Batch files.
		if got.CommandLine == "" {
			if err := checkBatchArgs(got.Exe, got.Args); err != nil {
				t.Fatalf("%q ran with %q: %v", got.Exe, got.Args, err)
			}
		}
	})
}

// reparsingWordRE matches a command word that parses its arguments as
// commands again (call, for, if, start, a nested cmd), written
// independently of reparsingBuiltins.
var reparsingWordRE = regexp.MustCompile(`(?i)^(call|for|if|start|cmd)([^a-z]|$)`)

// batchProgramRE matches a program name cmd.exe may run as a batch file,
// written independently of isBatchName.
var batchProgramRE = regexp.MustCompile(`(?i)\.(bat|cmd)[\s.,;=\x00-\x1f\x{85}\x{a0}\x{200b}\x{2060}\x{feff}\x{2000}-\x{200a}\x{3000}]*(:[^\\/]*)?$`)

// allowedAs reports whether entry allows the request asked to run as ran,
// by the rules of the allowlist (FuzzCheckExe checks them one entry at a
// time).
func allowedAs(entry string, asked, ran program) bool {
	if entry == "*" {
		return ran.text == asked.text
	}
	ent, err := parseProgram(entry)
	if err != nil {
		return false
	}
	switch {
	case ent.kind == kindName && asked.kind == kindName:
		return ran.stem() == ent.stem()
	case ent.kind == kindName:
		c, _ := parseProgram(fuzzHDCExe)
		return ran.text == c.text && baseKey(c) == ent.key
	default:
		return ran.text == ent.text && (asked.kind == ent.kind ||
			asked.kind != kindUNC && asked.kind != kindDevice && ent.kind != kindUNC && ent.kind != kindDevice)
	}
}

// checkCmdDecision checks the command line the cmd.exe rule made of args:
// one argument after /C or /K is the command as given; several reach the
// program unchanged (echo: its text), with every variable defined that
// the encodings allow and those the request defines (env) too.
func checkCmdDecision(t *testing.T, args []string, line string, env map[string]string) {
	t.Helper()
	i := slices.IndexFunc(args, func(a string) bool { return strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k") })
	if i < 0 {
		t.Fatalf("%q: command line %q without /C or /K", args, line)
	}
	mode, rest := strings.ToLower(args[i]), args[i+1:]
	if len(rest) == 0 {
		if !strings.HasSuffix(line, " "+mode) {
			t.Fatalf("%q: command line %q", args, line)
		}
		return
	}
	j := strings.Index(line, "/s "+mode+" ")
	if j < 0 {
		t.Fatalf("%q: command line %q has no /s %s", args, line, mode)
	}
	cmd := line[j+len("/s "+mode+" "):]
	if len(rest) == 1 {
		if cmd != rest[0] && cmd != `"`+rest[0]+`"` {
			t.Fatalf("%q: the command reaches cmd.exe as %q", args, cmd)
		}
		return
	}
	if !strings.HasSuffix(line[:j], "/v:off ") {
		t.Fatalf("%q: literal tokens without /v:off: %q", args, line)
	}
	// cmd.exe skips delimiters and @ before the command word: ";call",
	// "\u00a0call" or "@ call" must not reach it as the builtin that parses
	// its arguments again.
	lead := strings.TrimLeftFunc(rest[0], func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(",;=@(\"\u00a0\u200b\ufeff", r)
	})
	if reparsingWordRE.MatchString(lead) {
		t.Fatalf("%q: literal tokens after %q, which cmd.exe may read as a builtin that parses them again", args, rest[0])
	}
	// Nor a batch file, which reads %1 with cmd.exe's parser, behind a
	// stream suffix or trailing characters cmd.exe may drop.
	if batchProgramRE.MatchString(rest[0]) {
		t.Fatalf("%q: literal tokens for %q, a batch file", args, rest[0])
	}
	inEnv := func(base string) bool {
		for k := range env {
			if strings.EqualFold(k, base) {
				return true
			}
		}
		return false
	}
	if strings.EqualFold(rest[0], "echo") {
		got, err := cmdModel(cmdSwitches+cmd, false, func(b string) bool { return definedUnlessCaret(b) || inEnv(b) })
		if want := rest[0] + " " + strings.Join(rest[1:], " "); err != nil || got != want {
			t.Fatalf("%q: cmd.exe reads %q as %q (%v), want %q", args, line, got, err, want)
		}
		return
	}
	for _, wine := range []bool{false, true} {
		got, err := cmdModel(cmdSwitches+cmd, wine, func(b string) bool { return definedUnlessQuoted(b) || inEnv(b) })
		if err != nil || strings.Contains(got, expandedMark) {
			t.Fatalf("wine order %v: %q: %q, %v", wine, line, got, err)
		}
		if parsed := SplitCommandLine(got); !slices.Equal(parsed, rest) {
			t.Fatalf("wine order %v: %q reaches the program as %q, want %q", wine, line, parsed, rest)
		}
	}
}
