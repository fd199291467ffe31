package peertest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns a missing peer from a
// skip into a failure when set to "1".
const RequireEnv = "WINBRIDGE_REQUIRE_PEERS"

// modulePath identifies this module's go.mod when walking up directories.
const modulePath = "github.com/winbridge/winbridge"

// Required reports whether missing peers must fail tests (RequireEnv=1).
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// reporter is the part of testing.TB the policy needs; tests fake it.
type reporter interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Unavailable reports that a peer the test needs is missing. It skips the
// test, saying why and how to fix it, or fails it when [Required] is true.
// It does not return.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	unavailable(t, Required(), fmt.Sprintf(format, args...))
}

func unavailable(t reporter, required bool, reason string) {
	t.Helper()
	if required {
		t.Fatalf("required peer unavailable (%s=1): %s", RequireEnv, reason)
		return
	}
	t.Skipf("SKIP: peer unavailable: %s (install with scripts/setup; set %s=1 to make this a failure)", reason, RequireEnv)
}

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// RepoRoot returns the directory holding this module's go.mod, found by
// walking up from the working directory. It fails the test if there is none.
func RepoRoot(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() { rootDir, rootErr = findRoot() })
	if rootErr != nil {
		t.Fatalf("peertest: %v", rootErr)
	}
	return rootDir
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && regexp.MustCompile(`(?m)^module\s+`+regexp.QuoteMeta(modulePath)+`\s*$`).Match(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod for %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// NodeDir returns internal/peers/node, the npm package holding the peers and
// the scripts (ts-client.mjs, ts-server.mjs, ps-parse.mjs). Its node_modules
// must be installed (scripts/setup), otherwise [Unavailable].
func NodeDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "internal", "peers", "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		Unavailable(t, "npm packages not installed in %s (npm ci)", dir)
	}
	return dir
}

// Node returns the path of the system node binary (Node.js 20 or newer),
// or calls [Unavailable].
func Node(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("node")
	if err != nil {
		Unavailable(t, "node not found in PATH")
	}
	checkNodeVersion(t, path, 20)
	return path
}

// Node22 returns the Node.js 22 binary installed from the npm registry into
// internal/peers/node22, or calls [Unavailable]. The conformance suite and
// the inspector need it.
func Node22(t testing.TB) string {
	t.Helper()
	path := filepath.Join(RepoRoot(t), "internal", "peers", "node22", "node_modules", ".bin", "node")
	if _, err := os.Stat(path); err != nil {
		Unavailable(t, "Node.js 22 not installed at %s (npm ci in internal/peers/node22)", path)
	}
	checkNodeVersion(t, path, 22)
	return path
}

var nodeVersions sync.Map // path -> versionResult

type versionResult struct {
	major int
	err   error
}

// checkNodeVersion runs `node --version` once per path and requires at
// least the given major version.
func checkNodeVersion(t testing.TB, path string, min int) {
	t.Helper()
	v, ok := nodeVersions.Load(path)
	if !ok {
		var r versionResult
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			r.err = err
		} else if m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out); m == nil {
			r.err = fmt.Errorf("unexpected version %q", bytes.TrimSpace(out))
		} else {
			r.major, _ = strconv.Atoi(string(m[1]))
		}
		v, _ = nodeVersions.LoadOrStore(path, r)
	}
	r := v.(versionResult)
	switch {
	case r.err != nil:
		Unavailable(t, "%s --version: %v", path, r.err)
	case r.major < min:
		Unavailable(t, "%s is Node.js %d, need >= %d", path, r.major, min)
	}
}

// LookPath returns the path of an executable in PATH (e.g. "wine",
// "x86_64-w64-mingw32-gcc"), or calls [Unavailable].
func LookPath(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Unavailable(t, "%s not found in PATH", name)
	}
	return path
}

// NodeCmd returns a command running node (the binary at nodePath, or the
// system [Node] if nodePath is "") on script with args. A relative script is
// taken relative to [NodeDir], which is also the working directory. The
// command inherits the environment; set Stdin/Stdout/Stderr as needed. It
// is killed when ctx ends, and Wait gives up on its output 5s after that
// (grandchildren may hold the pipes).
func NodeCmd(t testing.TB, ctx context.Context, nodePath, script string, args ...string) *exec.Cmd {
	t.Helper()
	dir := NodeDir(t)
	if nodePath == "" {
		nodePath = Node(t)
	}
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, script)
	}
	cmd := exec.CommandContext(ctx, nodePath, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// RunNode runs script (see [NodeCmd]) with the system node and returns its
// stdout. Its stderr goes to the test log; on failure the error holds the
// exit status and the stderr too.
func RunNode(t testing.TB, ctx context.Context, script string, args ...string) ([]byte, error) {
	t.Helper()
	return run(t, NodeCmd(t, ctx, Node(t), script, args...))
}

// RunNode22 is [RunNode] with the Node.js 22 binary ([Node22]).
func RunNode22(t testing.TB, ctx context.Context, script string, args ...string) ([]byte, error) {
	t.Helper()
	return run(t, NodeCmd(t, ctx, Node22(t), script, args...))
}

func run(t testing.TB, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	name := strings.Join(append([]string{filepath.Base(cmd.Path)}, relArgs(cmd)...), " ")
	if stderr.Len() > 0 {
		t.Logf("stderr of %s:\n%s", name, stderr.Bytes())
	}
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("%s: %w; stderr:\n%s", name, err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

// relArgs shortens absolute paths under the node dir for readable logs.
func relArgs(cmd *exec.Cmd) []string {
	out := make([]string, 0, len(cmd.Args)-1)
	for _, a := range cmd.Args[1:] {
		if rel, err := filepath.Rel(cmd.Dir, a); err == nil && filepath.IsAbs(a) && !strings.HasPrefix(rel, "..") {
			a = rel
		}
		out = append(out, a)
	}
	return out
}

// peerFile returns a file inside internal/peers/node/node_modules, or calls
// [Unavailable].
func peerFile(t testing.TB, rel string) string {
	t.Helper()
	path := filepath.Join(NodeDir(t), "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		Unavailable(t, "%s missing (npm ci in internal/peers/node)", path)
	}
	return path
}

// EverythingServer returns the argv that runs the reference "everything"
// server (@modelcontextprotocol/server-everything) over stdio.
func EverythingServer(t testing.TB) []string {
	t.Helper()
	return []string{Node(t), peerFile(t, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"}
}

// FilesystemServer returns the argv that runs the reference filesystem
// server over stdio, allowed to access dirs.
func FilesystemServer(t testing.TB, dirs ...string) []string {
	t.Helper()
	return append([]string{Node(t), peerFile(t, "@modelcontextprotocol/server-filesystem/dist/index.js")}, dirs...)
}

// TSServer returns the argv that runs ts-server.mjs, the small TypeScript
// SDK server (tools echo, add, fail, slow), over stdio.
func TSServer(t testing.TB) []string {
	t.Helper()
	return []string{Node(t), filepath.Join(NodeDir(t), "ts-server.mjs")}
}

// Conformance returns the argv prefix of the MCP conformance suite CLI run
// by Node.js 22; append e.g. "server", "--url", url, "--scenario", name.
func Conformance(t testing.TB) []string {
	t.Helper()
	return []string{Node22(t), peerFile(t, "@modelcontextprotocol/conformance/dist/index.js")}
}

// InspectorCLI returns the argv prefix of the MCP inspector in --cli mode run
// by Node.js 22; append options, then the server command or URL. Set
// MCP_CATALOG_PATH to a temp file for methods that touch the catalog.
func InspectorCLI(t testing.TB) []string {
	t.Helper()
	return []string{Node22(t), peerFile(t, "@modelcontextprotocol/inspector/clients/launcher/build/index.js"), "--cli"}
}

var (
	buildMu     sync.Mutex
	builds      = map[string]*buildResult{}
	buildDirErr error
	buildDir    string
)

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// BuildGo builds a main package of this module (a path relative to the
// repository root, e.g. "./examples/everything-server") and returns the
// executable's path. Each package is built once per test binary, into a
// directory of the user's cache that is this clone's and is reused by
// every later run (a new build replaces the old one by rename, so a
// program another test binary is running stays as it was). Before, each
// test binary left a temporary directory of executables behind, about
// 77 MB a run, and a few hundred runs filled a disk. A build failure
// fails the test.
func BuildGo(t testing.TB, pkg string) string {
	t.Helper()
	return BuildGoEnv(t, pkg)
}

// BuildGoEnv is [BuildGo] with extra environment for `go build`, e.g.
// "GOOS=windows", "GOARCH=amd64"; each (package, env) pair is built once.
// With GOOS=windows the executable name ends in ".exe".
func BuildGoEnv(t testing.TB, pkg string, env ...string) string {
	t.Helper()
	root := RepoRoot(t)
	key := pkg + "\x00" + strings.Join(env, "\x00")

	buildMu.Lock()
	if buildDir == "" && buildDirErr == nil {
		buildDir, buildDirErr = buildRoot(root)
	}
	b := builds[key]
	if b == nil {
		b = &buildResult{}
		builds[key] = b
	}
	dir, dirErr := buildDir, buildDirErr
	buildMu.Unlock()
	if dirErr != nil {
		t.Fatalf("peertest: %v", dirErr)
	}

	b.once.Do(func() {
		name := filepath.Base(filepath.Clean(pkg))
		for _, e := range env {
			if e == "GOOS=windows" {
				name += ".exe"
			}
		}
		sum := sha256.Sum256([]byte(key))
		out := filepath.Join(dir, hex.EncodeToString(sum[:8]), name)
		// Built beside its place and renamed into it: test binaries
		// running at once (go test ./...) may build the same package.
		tmp := out + ".tmp" + strconv.Itoa(os.Getpid())
		cmd := exec.Command("go", "build", "-o", tmp, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		msg, err := cmd.CombinedOutput()
		if err == nil {
			err = os.Rename(tmp, out)
		}
		if err != nil {
			os.Remove(tmp)
			b.err = fmt.Errorf("go build %s (%s): %w\n%s", pkg, strings.Join(env, " "), err, msg)
			return
		}
		b.path = out
	})
	if b.err != nil {
		t.Fatalf("peertest: %v", b.err)
	}
	return b.path
}

// buildRoot is where BuildGo puts the executables of the clone at root:
// <user cache>/winbridge-peertest/<digest of root>, private to the user
// (another user could otherwise plant programs in a shared directory for
// the tests to run). Without a user cache directory, a temporary one,
// left behind as before.
func buildRoot(root string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return os.MkdirTemp("", "winbridge-peertest-")
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(base, "winbridge-peertest", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// ExitCode returns the exit status carried by err from [RunNode] or an
// exec.Cmd, -1 if err is some other error, 0 if err is nil.
func ExitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		return -1
	}
}

// ParsePowerShell syntax-checks a PowerShell script with ps-parse.mjs
// (tree-sitter's PowerShell grammar). It returns nil if the script parses,
// or an error listing the syntax errors ("line:col: ..."). It fails the test
// if the parser itself cannot run.
func ParsePowerShell(t testing.TB, ctx context.Context, script string) error {
	t.Helper()
	cmd := NodeCmd(t, ctx, "", "ps-parse.mjs")
	cmd.Stdin = strings.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	switch ExitCode(err) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("PowerShell syntax errors:\n%s", bytes.TrimSpace(stderr.Bytes()))
	default:
		t.Fatalf("ps-parse.mjs: %v\n%s", err, stderr.Bytes())
		return err
	}
}
