package winexec

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winbridge/winbridge/internal/wintest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestBootstrapGolden pins the script PowerShell runs: the decoded
// -EncodedCommand must be byte-for-byte testdata/bootstrap.ps1.golden, so
// any change to it is reviewed as a diff of PowerShell, not of base64.
func TestBootstrapGolden(t *testing.T) {
	argv := PowerShellArgv("powershell.exe")
	wantPrefix := []string{"powershell.exe", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-EncodedCommand"}
	if diff := cmp.Diff(wantPrefix, argv[:6]); diff != "" || len(argv) != 7 {
		t.Fatalf("argv shape (-want +got):\n%s (len %d)", diff, len(argv))
	}
	decoded, err := DecodePowerShell(argv[6])
	if err != nil {
		t.Fatal(err)
	}
	if decoded != Bootstrap {
		t.Fatal("decoded -EncodedCommand differs from Bootstrap")
	}
	// UTF-16LE, no BOM: the first character's bytes come first.
	raw := mustB64(t, argv[6])
	if raw[0] != '#' || raw[1] != 0 {
		t.Fatalf("not UTF-16LE: % x", raw[:4])
	}
	golden := filepath.Join("testdata", "bootstrap.ps1.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(decoded), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestBootstrapGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), decoded); diff != "" {
		t.Errorf("bootstrap changed (-golden +now); review and rerun with -update:\n%s", diff)
	}
	// The whole command line must fit CreateProcess's 32,767 characters
	// with room for a long PowerShell path.
	if n := len(BuildCommandLine(`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, argv[1:])); n > 32767-1024 {
		t.Errorf("PowerShell command line is %d characters", n)
	}
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	d, err := DecodePowerShell(s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, r := range d[:2] {
		b.WriteByte(byte(r))
		b.WriteByte(byte(r >> 8))
	}
	return b.Bytes()
}

func TestEncodePowerShellRoundTrip(t *testing.T) {
	for _, s := range []string{"", "Get-Date", "中文 😀 `n $x", Bootstrap} {
		got, err := DecodePowerShell(EncodePowerShell(s))
		if err != nil || got != s {
			t.Errorf("round trip of %.20q: %.20q, %v", s, got, err)
		}
	}
	if _, err := DecodePowerShell("!!"); err == nil {
		t.Error("bad base64 accepted")
	}
	if _, err := DecodePowerShell("YQ=="); !errors.Is(err, ErrProtocol) {
		t.Errorf("odd byte count: %v", err)
	}
}

// TestBootstrapParses runs a real PowerShell parser (a colleague's npm
// package wrapper) on the bootstrap, since no PowerShell exists here.
func TestBootstrapParses(t *testing.T) {
	root := repoRoot(t)
	script := filepath.Join(root, "internal", "peers", "node", "ps-parse.mjs")
	if _, err := os.Stat(script); err != nil {
		wintest.Missing(t, "PowerShell parser %s not present", script)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "peers", "node", "node_modules")); err != nil {
		wintest.Missing(t, "node_modules for %s not installed (npm ci in internal/peers/node)", script)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		wintest.Missing(t, "node not found")
	}
	check := func(name, src string) error {
		cmd := exec.Command(node, script)
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(src)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return errors.New(name + ": " + err.Error() + "\n" + string(out))
		}
		return nil
	}
	if err := check("bootstrap", Bootstrap); err != nil {
		t.Fatal(err)
	}
	// The parser must be able to fail, or its success proves nothing.
	if err := check("broken script", "function f( { $x = "); err == nil {
		t.Fatal("parser accepted a broken script; the check is not effective")
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}
