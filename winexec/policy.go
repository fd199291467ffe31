package winexec

import (
	"fmt"
	"strings"
)

// DefaultAllowExe is the executable allowlist used when Policy.AllowExe is
// nil: only the HarmonyOS device connector.
var DefaultAllowExe = []string{"hdc.exe"}

// Policy decides which requests may run. The zero value allows only
// DefaultAllowExe and no environment variables.
type Policy struct {
	// AllowExe lists allowed executables (setting ALLOW_EXE). An entry
	// without a directory is a program name: it allows that name alone,
	// found by the search path, compared ignoring ASCII case and with or
	// without ".exe" ("hdc.exe" allows "hdc" and "HDC.EXE", never
	// C:\evil\hdc.exe). An entry with a directory is an absolute path and
	// allows that file only, in its Windows or WSL spelling (C:\x\y.exe is
	// /mnt/c/x/y.exe), ignoring ASCII case and separators. UNC paths
	// (\\host\share\...) and device paths (\\?\..., \\.\...) match only
	// an entry spelled the same way. What runs is the entry as listed
	// (a name with the request's ".exe" or not), not the request's
	// spelling. "*" allows every valid program. Nil means DefaultAllowExe.
	// Entries that are not valid program names or absolute paths (see
	// ErrInvalidExe) allow nothing.
	AllowExe []string

	// AllowEnv lists the environment variable names a request may set
	// (setting ALLOW_ENV), compared case-insensitively as Windows does. "*"
	// allows every valid name except those that steer the loader or the
	// launcher or make a runtime load code (LD_*, DYLD_*, WINE*, WSLENV,
	// WSL_INTEROP, GCONV_PATH and glibc's other module paths, COR_*,
	// CORECLR_*, DOTNET_*, COMPlus_*, NODE_OPTIONS, the Java, Python,
	// Perl, Ruby and bash startup variables, CLASSPATH, PATH, PATHEXT,
	// COMSPEC, SystemRoot, windir), those that send a program's traffic
	// elsewhere or change whom it trusts (HTTP_PROXY and the other
	// proxies, SSL_CERT_FILE and the other CA bundles,
	// NODE_TLS_REJECT_UNAUTHORIZED, ...), cmd.exe's dynamic variables
	// (CD, ERRORLEVEL, ...) and the temporary directory (TEMP, TMP,
	// TMPDIR); see launcherEnv and docs/WINDOWS.md. They
	// must be listed by name. Names with "=", ":" or "/" (which WSLENV would read
	// as its own syntax), '"' or '^' (which would undo cmd.exe's literal
	// tokens) or control characters are never allowed.
	AllowEnv []string
}

// CheckExe checks exe against the policy and returns the program to run in
// its place: the allowlist entry it matched (see AllowExe), or exe in
// canonical form when "*" allowed it. An exe that is not a program name or
// an absolute path is an error wrapping ErrInvalidExe; a valid one the
// list does not allow is a *NotAllowedError. Run the returned program, not
// exe: the decision holds for it only.
func (p *Policy) CheckExe(exe string) (string, error) { return p.checkExe(exe) }

// checkExe is CheckExe where a program-name entry also allows the
// configured paths (Config.HDCExe) whose file has that name.
func (p *Policy) checkExe(exe string, configured ...string) (string, error) {
	req, err := parseProgram(exe)
	if err != nil {
		return "", err
	}
	list := p.AllowExe
	if list == nil {
		list = DefaultAllowExe
	}
	for _, a := range list {
		if a == "*" {
			return req.text, nil
		}
		entry, err := parseProgram(a)
		if err != nil {
			continue
		}
		if entry.kind != kindName {
			if entry.key == req.key {
				return entry.text, nil
			}
			continue
		}
		if req.kind == kindName {
			if entry.key == req.key {
				// The entry's spelling, with the request's choice of
				// suffix: "hdc" must stay "hdc" for a Linux hdc, and
				// "hdc.exe" is what WSL's search path needs.
				return entry.stem() + req.suffix, nil
			}
			continue
		}
		for _, c := range configured {
			cp, err := parseProgram(c)
			if err == nil && cp.kind != kindName && cp.key == req.key && baseKey(cp) == entry.key {
				return cp.text, nil
			}
		}
	}
	return "", &NotAllowedError{Setting: "ALLOW_EXE", Value: exe}
}

// baseKey is the key of the program name that p's last component is.
func baseKey(p program) string {
	stem := p.stem()
	i := strings.LastIndexAny(stem, `\/`)
	return "n:" + asciiLower(stem[i+1:])
}

// CheckEnv returns an error for the first variable in env that is not
// allowed: a *NotAllowedError for a name the list lacks, an error wrapping
// ErrInvalidEnv for a name no list may allow.
func (p *Policy) CheckEnv(env map[string]string) error {
	for k := range env {
		if err := checkEnvName(k); err != nil {
			return err
		}
		if !p.envAllowed(k) {
			return &NotAllowedError{Setting: "ALLOW_ENV", Value: k}
		}
	}
	return nil
}

func (p *Policy) envAllowed(name string) bool {
	for _, a := range p.AllowEnv {
		if strings.EqualFold(a, name) || (a == "*" && !launcherEnv(name)) {
			return true
		}
	}
	return false
}

// launcherEnv reports whether name steers how a program is loaded or
// launched, or makes it load code it was not told to run, rather than
// what it does: the dynamic loader (LD_PRELOAD runs any code in the local
// and direct backends' Linux processes), WSL interop and wine, glibc's
// module and catalog paths (GCONV_PATH loads a shared object into any
// program using iconv; glibc ignores these for setuid programs for the
// same reason), the .NET profiler and startup hooks (a DLL in any .NET
// program, Windows ones included), the startup code of Node, Java,
// Python, Perl, Ruby and bash, HOME (the wine prefix, Python's user
// site-packages) and the other places of user site-packages and Node
// modules (PYTHONUSERBASE, APPDATA, NODE_PATH), the search for programs and DLLs
// (PATH, PATHEXT, COMSPEC, SystemRoot, windir), the other homes whose
// configuration names commands to run (USERPROFILE, LOCALAPPDATA,
// XDG_CONFIG_HOME, ...), the variables that name a command outright
// (EDITOR, PAGER, LESSOPEN, GIT_*), the debuggers' symbol and extension
// paths (_NT_*: a symbol path can name a symbol server DLL to load) and
// PowerShell's module path, OpenSSL's configuration (it loads engine and
// provider DLLs), __COMPAT_LAYER (shims the loader applies) and the
// program-files and program-data directories (expanded in COM servers'
// registered paths), Java's CLASSPATH; the variables that send an allowed
// program's traffic (with the user's tokens) through another proxy or make
// it trust another CA or none (proxies, CA bundles, verification switches,
// TLS key logs, pip's, uv's and Go's module sources); cmd.exe's dynamic
// variables, which a variable of the same name replaces and scripts branch
// on; the temporary directory installers unpack and load DLLs from; the
// variables that name a command (SHELL, CC, RUSTC_WRAPPER, MAKEFLAGS,
// ...) or configuration that names one or decides where credentials go
// (KUBECONFIG, DOCKER_CONFIG, DOCKER_HOST, AWS_CONFIG_FILE, CARGO_*,
// YARN_*); Go's and Ruby's toolchain, module and gem directories; the JVM
// build tools' JAVA_HOME and *_OPTS, rustup's toolchain, and PowerShell's
// execution policy.
// "*" does not cover them; they must be listed
// by name. The list names the mechanisms known to us, not every program's:
// a program on the allowlist may read others.
func launcherEnv(name string) bool {
	n := strings.ToUpper(name)
	// GIT_: git's configuration (GIT_CONFIG_*, GIT_DIR with its hooks)
	// and the commands it runs (GIT_SSH_COMMAND, GIT_EDITOR,
	// GIT_EXTERNAL_DIFF, GIT_PROXY_COMMAND, ...). _NT_: the Windows
	// debuggers' paths (dbghelp loads the DLL a symbol path names,
	// symsrv*dll*..., and cdb the extensions of
	// _NT_DEBUGGER_EXTENSION_PATH). NPM_CONFIG_: any npm setting, among
	// them the shell and node options of the scripts it runs. LUA_INIT
	// (and LUA_INIT_5_4): code Lua runs at start. PIP_ and UV_: any pip
	// or uv setting, among them the index packages (code) come from, the
	// hosts trusted without TLS, the CA bundle and the proxy; CARGO_ and
	// YARN_ likewise for Cargo (CARGO_HOME's configuration,
	// build.rustc-wrapper) and Yarn (yarnPath runs a script). The AWS
	// SDKs send their signed requests to AWS_ENDPOINT_URL and
	// AWS_ENDPOINT_URL_<SERVICE>.
	for _, p := range []string{"LD_", "DYLD_", "WINE", "COR_", "CORECLR_", "DOTNET_", "COMPLUS_",
		"GIT_", "_NT_", "NPM_CONFIG_", "LUA_INIT", "PIP_", "UV_", "CARGO_", "YARN_", "AWS_ENDPOINT_URL"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	switch n {
	case "WSLENV", "WSL_INTEROP",
		"GCONV_PATH", "GLIBC_TUNABLES", "NLSPATH", "LOCPATH", "HOSTALIASES",
		"NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
		"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
		// Where Python finds user site-packages (usercustomize runs at
		// every start: PYTHONUSERBASE, and APPDATA for Windows Python)
		// and where Node resolves modules it requires by name.
		"PYTHONUSERBASE", "APPDATA", "NODE_PATH",
		"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4",
		// HOME holds code as well as settings: under wine it names the
		// prefix (~/.wine unless WINEPREFIX is set), whose DLLs and
		// registry every Windows program loads; on Linux, Python's user
		// site-packages (usercustomize runs at every start) and bash's
		// start-up files. Refused whatever the backend: the policy does
		// not know which one runs, and the Linux cases hold for local.
		"HOME",
		// Where Windows finds programs and DLLs: PATH (DLL search, and
		// the programs an allowed one starts by name), PATHEXT (which
		// file cmd.exe takes for a name), COMSPEC (the shell of the C
		// runtime's system and _popen), SYSTEMROOT and WINDIR (expanded
		// in the registry paths of DLLs Windows loads into a process,
		// such as Winsock providers).
		"PATH", "PATHEXT", "COMSPEC", "SYSTEMROOT", "WINDIR",
		// The other homes, whose configuration files name commands to
		// run (git's core.sshCommand and core.fsmonitor, npm's
		// script-shell, ssh's ProxyCommand): Windows's user profile and
		// its parts, and the XDG directories (git and many tools read
		// $XDG_CONFIG_HOME; GLib and others load modules found through
		// the data directories). ZDOTDIR holds zsh's start-up files.
		"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA",
		"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "ZDOTDIR",
		// Commands other programs run by name: editors and pagers (git,
		// less and many more start them), less's input preprocessor,
		// the browser, ssh's and git's password prompts, and Python's
		// breakpoint() hook.
		"EDITOR", "VISUAL", "PAGER", "LESSOPEN", "LESSCLOSE", "BROWSER", "SSH_ASKPASS",
		"PYTHONBREAKPOINT",
		// Plug-ins loaded into programs: PowerShell imports modules from
		// PSModulePath automatically when a command of theirs is used;
		// GLib's GIO and GTK load modules named or found here.
		"PSMODULEPATH", "GIO_EXTRA_MODULES", "GTK_MODULES", "GTK_PATH", "QT_PLUGIN_PATH",
		// OpenSSL's configuration, read at start by every program that
		// initialises it, loads engines and providers from any DLL or
		// shared object it names; the other two are where it finds them.
		"OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
		// The Windows loader applies the compatibility shims it names.
		"__COMPAT_LAYER",
		// cmd.exe's dynamic directories yield to a variable of the same
		// name, and scripts put them before the programs they run
		// (%__APPDIR__%findstr.exe).
		"__APPDIR__", "__CD__",
		// Expanded, like SYSTEMROOT, in the registered paths of the COM
		// servers and other DLLs Windows loads into a process.
		"PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
		"COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "COMMONPROGRAMW6432", "PROGRAMDATA",
		// Java loads classes from CLASSPATH before the application's own.
		"CLASSPATH",
		// Where a program's traffic goes and whom it trusts. An allowed
		// program that holds the user's tokens (git, gh, az, npm, curl)
		// would send its authenticated requests through the model's
		// proxy (the proxy variables, in any case: Windows compares
		// names ignoring case, and curl, Python and Go read both
		// spellings), trusting the model's CA (the CA bundles and
		// directories of OpenSSL, Node, Python requests, curl, the AWS
		// SDK, gRPC) or none (NODE_TLS_REJECT_UNAUTHORIZED,
		// PYTHONHTTPSVERIFY), or write its TLS session keys where the
		// model reads them (SSLKEYLOGFILE). NODE_USE_ENV_PROXY makes Node
		// honour the proxy variables; CURL_HOME and WGETRC name the
		// configuration files that set proxies, CA files and -k. Go's
		// module proxy, checksum database and the flags of every go
		// command (GOFLAGS=-toolexec=... runs a command) and GOTOOLCHAIN
		// (downloads and runs another toolchain) choose code.
		"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY", "NODE_USE_ENV_PROXY",
		"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED",
		"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PYTHONHTTPSVERIFY", "AWS_CA_BUNDLE",
		"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", "SSLKEYLOGFILE", "CURL_HOME", "WGETRC",
		"GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GONOPROXY", "GOPRIVATE", "GOINSECURE",
		"GOFLAGS", "GOTOOLCHAIN",
		// cmd.exe's other dynamic variables yield, like __CD__, to a
		// variable of the same name, and scripts branch on them
		// ("if %ERRORLEVEL% neq 0 goto fail"), run programs under them
		// (%CD%\tool.exe) or name files with them (%RANDOM%, %DATE%,
		// %TIME%): a variable set by the model steers the script.
		"CD", "ERRORLEVEL", "CMDCMDLINE", "CMDEXTVERSION", "RANDOM", "DATE", "TIME",
		"HIGHESTNUMANODENUMBER",
		// The temporary directory: installers and self-extracting
		// programs unpack into it and load DLLs from there (a planted
		// version.dll runs in the installer, often elevated), and Linux
		// programs write scripts there that they then run.
		"TEMP", "TMP", "TMPDIR",
		// Commands named outright: the user's shell (which editors,
		// pagers and many tools start), the compilers and linkers build
		// tools run (make, cgo, Cargo's build scripts), Rust's compiler
		// and its wrappers, make's flags (which define variables such
		// as SHELL), kubectl's editor.
		"SHELL", "CC", "CXX", "CPP", "LD", "AR", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "MAKEFLAGS", "MFLAGS",
		"KUBE_EDITOR",
		// Configuration that names commands or decides where credentials
		// go: kubeconfig's exec plug-ins and servers, Docker's credential
		// helpers and the daemon the CLI sends registry credentials to,
		// the AWS configuration's credential_process.
		"KUBECONFIG", "DOCKER_CONFIG", "DOCKER_HOST", "AWS_CONFIG_FILE",
		// Go's toolchain, module and build caches and its settings file
		// (GOENV can set GOFLAGS): planted contents are compiled in or
		// run. Ruby loads gems from GEM_HOME and GEM_PATH.
		"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOENV", "GEM_HOME", "GEM_PATH",
		// The JVM build tools' launcher scripts (mvn.cmd, gradlew.bat,
		// ant.bat, sbt) run %JAVA_HOME%\bin\java.exe and hand their *_OPTS
		// to it (-javaagent: loads a jar); Gradle runs the init scripts
		// under GRADLE_USER_HOME; rustup runs the toolchain
		// RUSTUP_TOOLCHAIN names, a directory path among them, or one of
		// RUSTUP_HOME; PowerShell takes its execution policy from
		// PSExecutionPolicyPreference.
		"JAVA_HOME", "JAVA_OPTS", "MAVEN_OPTS", "MAVEN_ARGS", "GRADLE_OPTS", "GRADLE_USER_HOME", "ANT_OPTS", "ANT_HOME",
		"SBT_OPTS", "RUSTUP_TOOLCHAIN", "RUSTUP_HOME", "PSEXECUTIONPOLICYPREFERENCE":
		return true
	}
	return false
}

// checkEnvName refuses names that cannot be one environment variable on
// both sides: empty, "=" (the name's end in an environment block), ":" and
// "/" (WSLENV is NAME/flags:NAME, so "A:PATH" would export the server's
// PATH to Windows), control characters and NUL. It also refuses '"' and
// '^': cmd.exe's literal tokens stay literal only because no variable is
// named like the text between two of their % signs, which always holds a
// quote (CmdCommandLine) or starts with a caret (CmdEscape); a request
// defining `^"^"x` made %x% expand, in Windows' order, into syntax.
func checkEnvName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidEnv)
	}
	for _, r := range name {
		if r == '=' || r == ':' || r == '/' || r == '"' || r == '^' || r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w %q: %q is not allowed in a name", ErrInvalidEnv, name, r)
		}
	}
	return nil
}
