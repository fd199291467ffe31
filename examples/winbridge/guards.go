package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/winexec"
)

// printGuards writes, for -check, the guards the server would apply with
// these settings: what a model may run and for how long, what needs
// confirm, and the bounds a peer meets. docs/SECURITY.md explains each.
func printGuards(s *settings, out io.Writer) {
	cfg := s.cfg
	g := func(name, format string, args ...any) {
		if name != "" {
			name += ":"
		}
		fmt.Fprintf(out, "  %-12s %s\n", name, fmt.Sprintf(format, args...))
	}
	fmt.Fprintln(out, "guards (docs/SECURITY.md):")
	g("programs", "%s", allowedPrograms(cfg.Policy.AllowExe))
	g("", "a name is found on the search path only (never the same name elsewhere); a path allows that file; UNC and device paths only if listed exactly")
	env := "none may be set"
	if len(cfg.Policy.AllowEnv) > 0 {
		env = strings.Join(cfg.Policy.AllowEnv, ", ")
	}
	g("environment", "%s; never names with = : / or control characters; variables that choose code to load (LD_*, DYLD_*, WINE*, WSLENV, WSL_INTEROP, NODE_OPTIONS, JAVA_TOOL_OPTIONS, PYTHONPATH, PERL5OPT, RUBYOPT, BASH_ENV, HOME, PYTHONUSERBASE, APPDATA, NODE_PATH, PATH, PATHEXT, COMSPEC, SystemRoot, windir, USERPROFILE, LOCALAPPDATA, XDG_CONFIG_HOME, GIT_*, _NT_*, EDITOR, PAGER, LESSOPEN, PSModulePath and the like; see docs/WINDOWS.md) only if listed by name", env)
	secrets := "variables whose name marks a credential (GITHUB_TOKEN, *_API_KEY, SSH_AUTH_SOCK, ...) are not inherited by programs"
	if len(cfg.PassEnv) > 0 {
		secrets += "; passed anyway (-pass-env): " + strings.Join(cfg.PassEnv, ", ")
	}
	g("secrets", "%s; winbridge's own (%s) never", secrets, strings.Join(serverSecretEnv, ", "))
	g("time", "default %v, at most %v per call (-timeout, -max-timeout); then the process tree is killed",
		orDuration(cfg.DefaultTimeout, 60*time.Second), orDuration(cfg.MaxTimeout, winexec.DefaultMaxTimeout))
	pool := cfg.PoolSize
	if pool <= 0 {
		pool = winexec.DefaultPoolSize
	}
	g("powershell", "%d hosts at most; a call waits at most %v for one (-queue-timeout), then fails and nothing runs",
		pool, orDuration(cfg.QueueTimeout, winexec.DefaultQueueTimeout))
	g("trees", "%s", treeGuard(&cfg))
	maxOut := cfg.MaxOutput
	if maxOut <= 0 {
		maxOut = winexec.DefaultMaxOutput
	}
	g("output", "%d bytes kept per stream (head and tail)", maxOut)
	if s.hdc {
		g("hdc", "commands that change the device or the hdc server, and server options, need confirm:true; hilog parse never runs; connect keys checked")
	} else {
		g("hdc", "tools off")
	}
	if s.dotNaming {
		g("tool names", "dotted (win.exec, ...): Claude Desktop, OpenAI and Codex reject them")
	} else {
		g("tool names", "win_exec, path_*, hdc_*: accepted by every major host")
	}
	g("session", "%d requests (%d bytes) in flight, then input is not read; %d subscriptions; at shutdown calls are cancelled and awaited %v",
		mcp.DefaultMaxInFlight, mcp.DefaultMaxInFlightBytes, mcp.DefaultMaxSubscriptions, mcp.DefaultShutdownTimeout)
	if s.httpAddr == "" {
		g("http", "off (stdio)")
		return
	}
	access := "loopback only"
	if s.http.AllowRemote {
		access = "remote allowed (-http-allow-remote)"
	}
	token := "no token"
	if s.http.TokenFile != "" || s.http.Token != "" {
		token = "bearer token required"
	}
	g("http", "%s: %s, %s; %d sessions, idle %v; %d retained streams (%d bytes, %v) per session; bodies %d bytes",
		s.httpAddr, access, token, mcphttp.DefaultMaxSessions, mcphttp.DefaultSessionTimeout,
		mcphttp.DefaultMaxRetainedStreams, mcphttp.DefaultMaxRetainedBytes, mcphttp.DefaultRetainFor, mcphttp.DefaultMaxBody)
}

// backendOf is the backend New would pick for cfg.
func backendOf(cfg *winexec.Config) string {
	if cfg.Backend == "" || cfg.Backend == winexec.BackendAuto {
		return winexec.AutoBackend(cfg)
	}
	return cfg.Backend
}

// treeGuard says whether a timeout or a cancel kills a call's whole
// process tree: whether the tree is contained by a Job Object.
func treeGuard(cfg *winexec.Config) string {
	switch backendOf(cfg) {
	case winexec.BackendDirect:
		if cfg.JobHelper != "" {
			return "contained by a kill-on-close Windows Job Object (job helper " + cfg.JobHelper + ")"
		}
		return "NOT contained by a job: a timeout kills the Linux process group, which under WSL ends only the direct Windows child and under wine misses descendants in a new console or process group; set -job-helper (docs/WINDOWS.md, \"Tree kill\")"
	case winexec.BackendPowerShell, winexec.BackendPSHost:
		return "contained by a kill-on-close Windows Job Object per call (made by the PowerShell bootstrap; taskkill /T as fallback)"
	default:
		if runtime.GOOS == "windows" {
			return "contained by a kill-on-close Windows Job Object per call"
		}
		return "the call's process group is killed (a descendant that leaves the group, e.g. with setsid, is not)"
	}
}

// allowedPrograms says what ALLOW_EXE allows, in words.
func allowedPrograms(allow []string) string {
	if len(allow) == 0 {
		return "none"
	}
	for _, a := range allow {
		if a == "*" {
			return "ANY valid program (ALLOW_EXE=*)"
		}
	}
	return strings.Join(allow, ", ")
}
