package client

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCmdLineQuoting(t *testing.T) {
	got := cmdLine(`C:\Windows\System32\cmd.exe`, `C:\Program Files\nodejs\npx.cmd`,
		[]string{"-y", "@scope/pkg@1.0", `a b`, `say "hi" & del *`, `C:\dir\`, "%PATH%"})
	want := `C:\Windows\System32\cmd.exe /d /s /c "C:\Program^ Files\nodejs\npx.cmd ^^^"-y^^^" ^^^"@scope/pkg@1.0^^^" ^^^"a^^^ b^^^" ^^^"say^^^ \^^^"hi\^^^"^^^ ^^^&^^^ del^^^ ^^^*^^^" ^^^"C:\dir\\^^^" ^^^"^^^%PATH^^^%^^^""`
	if got != want {
		t.Errorf("cmdLine:\n got %s\nwant %s", got, want)
	}
	for in, want := range map[string]string{
		`plain`:   `"plain"`,
		`a"b`:     `"a\"b"`,
		`tail\`:   `"tail\\"`,
		`x\\"y`:   `"x\\\\\"y"`,
		``:        `""`,
		`in\side`: `"in\side"`,
	} {
		if got := quoteArg(in); got != want {
			t.Errorf("quoteArg(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNpxCommand(t *testing.T) {
	cmd, err := Npx("@modelcontextprotocol/server-everything@2026.8.31", "stdio")
	if err != nil || !cmd.IsNpx() || !slices.Equal(cmd.Args, []string{"-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"}) {
		t.Errorf("Npx: %+v %v", cmd, err)
	}
	if cmd.name() != "npx @modelcontextprotocol/server-everything@2026.8.31" {
		t.Errorf("name %q", cmd.name())
	}
	for _, bad := range []string{"", "-y", "a b"} {
		if _, err := Npx(bad); err == nil {
			t.Errorf("Npx(%q) accepted", bad)
		}
	}
	for path, want := range map[string]bool{"npx": true, `C:\node\npx.cmd`: true, "/usr/bin/npx": true, "npm": false, "npxx": false} {
		if (&Command{Path: path}).IsNpx() != want {
			t.Errorf("IsNpx(%q) != %v", path, want)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"PATH=/bin", "HOME=/root"}, []string{"path=/x", "A=1", "HOME=/home"}, false)
	if !slices.Equal(got, []string{"PATH=/bin", "HOME=/home", "path=/x", "A=1"}) {
		t.Errorf("posix: %v", got)
	}
	got = mergeEnv([]string{"Path=C:\\bin"}, []string{"PATH=C:\\x"}, true)
	if !slices.Equal(got, []string{"PATH=C:\\x"}) {
		t.Errorf("windows: %v", got)
	}
}

func TestRingKeepsTheTail(t *testing.T) {
	r := newRing(10)
	r.Write([]byte("0123"))
	if string(r.Bytes()) != "0123" {
		t.Errorf("%q", r.Bytes())
	}
	r.Write([]byte("456789ab"))
	if string(r.Bytes()) != "23456789ab" {
		t.Errorf("%q", r.Bytes())
	}
	r.Write([]byte("cd"))
	if string(r.Bytes()) != "456789abcd" {
		t.Errorf("%q", r.Bytes())
	}
	r.Write(bytes.Repeat([]byte("z"), 25))
	if string(r.Bytes()) != strings.Repeat("z", 10) {
		t.Errorf("%q", r.Bytes())
	}
}

func TestBackoffGrowsToTheCap(t *testing.T) {
	rp := &RestartPolicy{InitialDelay: 100 * time.Millisecond, MaxDelay: time.Second, Multiplier: 2, Jitter: 0.2}
	for n, base := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 10: time.Second} {
		for range 50 {
			d := backoff(rp, n)
			if d < base*8/10 || d > base*12/10 {
				t.Fatalf("backoff(%d) = %v, want %v ± 20%%", n, d, base)
			}
		}
	}
}

func TestExitErrorMessage(t *testing.T) {
	e := &ExitError{Pid: 42, Code: 3, Stderr: append(bytes.Repeat([]byte("noise\n"), 1000), "the real reason\n"...)}
	msg := e.Error()
	if !strings.Contains(msg, "exited with status 3") || !strings.HasSuffix(msg, "the real reason") || len(msg) > maxStderrInError+100 {
		t.Errorf("message of %d bytes: %.100s", len(msg), msg)
	}
	// A child's terminal controls are shown, not passed on to the
	// terminal that prints the error: \x1b]0; retitles it, \r returns to
	// the start of the line, U+202E reverses what follows.
	e = &ExitError{Pid: 42, Code: 1, Stderr: []byte("boom\x1b]0;owned\x07\rclean\u202e\nnext line\n")}
	msg = e.Error()
	if strings.ContainsAny(msg, "\x1b\x07\r\u202e") || !strings.Contains(msg, `\x1b]0;owned\a`) || !strings.Contains(msg, "\nnext line") {
		t.Errorf("message %q", msg)
	}
}

func TestInheritedNames(t *testing.T) {
	for _, name := range []string{
		"PATH", "HOME", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
		"ALL_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
		"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_TIME", "LC_TELEPHONE", "TZ", "TMPDIR", "npm_config_proxy", "NPM_CONFIG_CAFILE",
		"npm_config_registry",
	} {
		if !inheritedName(name, false) {
			t.Errorf("%s is not inherited on POSIX", name)
		}
	}
	for _, name := range []string{"Path", "SystemRoot", "https_proxy", "TEMP", "Tmp", "PATHEXT", "ComSpec", "windir", "LANG"} {
		if !inheritedName(name, true) {
			t.Errorf("%s is not inherited on Windows", name)
		}
	}
	for _, name := range []string{
		"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "DB_PASSWORD", "PGPASSWORD", "NPM_TOKEN",
		"npm_config__authToken", "npm_config_//registry.npmjs.org/:_authToken", "NPM_CONFIG__AUTH",
		"LC_API_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SSH_AUTH_SOCK", "Path_", "PROXY_PASSWORD",
		"HTTPS_PROXY_PASSWORD", "Https_Proxy", "lang", "DEBUG", "NODE_OPTIONS", "",
		"NODE_TLS_REJECT_UNAUTHORIZED", "npm_config_strict_ssl",
		// sshd passes LC_* by default (AcceptEnv LC_*), so people carry
		// other values through it under LC_ names.
		"GH_TOKEN", "AZURE_CLIENT_SECRET", "MYSQL_PWD", "DOCKER_CREDENTIALS", "KUBECONFIG",
		"GOOGLE_APPLICATION_CREDENTIALS", "VAULT_ADDR", "AWS_PROFILE",
		"LC_DB_PWD", "LC_GH_PAT", "LC_KEY", "LC_CREDS", "LC_VAULT", "LC_MYAPP_SETTING", "LC_",
	} {
		if inheritedName(name, false) {
			t.Errorf("%q is inherited on POSIX", name)
		}
	}
	for _, name := range []string{"GITHUB_TOKEN", "npm_config__authToken", "LC_SECRET", "AZURE_CLIENT_SECRET", "lc_db_pwd", "LC_GH_PAT"} {
		if inheritedName(name, true) {
			t.Errorf("%q is inherited on Windows", name)
		}
	}
}

// FuzzInheritedName checks the policy's one promise for any name: what
// looks like a credential never passes by default.
func FuzzInheritedName(f *testing.F) {
	for _, s := range []string{"HTTPS_PROXY", "LC_ALL", "LC_TOKEN", "npm_config__authToken", "npm_config_proxy", "GITHUB_TOKEN", "Path"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, windows := range []bool{false, true} {
			if inheritedName(name, windows) && looksSecret(name) {
				t.Fatalf("%q passes though it looks like a credential", name)
			}
		}
	})
}

// The label of an npx command, which every log record and error of the
// server carries, names the package only when an argument reads as one:
// an option's value (a registry or tarball URL with a password or token in
// it) is not a package and is never shown. Before, the first argument not
// starting with "-" was the label, whatever it was.
func TestNpxNameShowsNoCredentials(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-y", "--registry", "https://me:hunter2@npm.corp/", "@corp/server@1.2.0", "stdio"}, "npx @corp/server@1.2.0"},
		{[]string{"-y", "https://npm.corp/server.tgz?token=hunter2"}, "npx"},
		{[]string{"-y", "https://npm.corp/server.tgz?token=hunter2", "stdio"}, "npx"},
		{[]string{"--cache", "/tmp/hunter2/", "mcp-remote@latest", "https://h/sse?key=hunter2"}, "npx mcp-remote@latest"},
		{[]string{"-y", "git+https://hunter2@github.com/o/r.git"}, "npx"},
		{[]string{"-y", "@modelcontextprotocol/server-filesystem", "/srv"}, "npx @modelcontextprotocol/server-filesystem"},
		{[]string{"-y", "mcp-server-kubernetes@^1.2", "x"}, "npx mcp-server-kubernetes@^1.2"},
	} {
		cmd := &Command{Path: "npx", Args: tc.args}
		if got := cmd.name(); got != tc.want {
			t.Errorf("name of npx %q = %q, want %q", tc.args, got, tc.want)
		}
	}
}
