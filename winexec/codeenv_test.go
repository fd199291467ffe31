package winexec

import (
	"errors"
	"testing"
)

// TestPolicyStarSparesCodeLoadingEnv: besides the loader, runtimes load
// code named by a variable: glibc's iconv modules (GCONV_PATH) and message
// catalogs, the .NET profiler and startup hooks (a DLL in any .NET
// program, on Windows too), Node, Java, Python, Perl, Ruby and bash
// startup code. "*" must not hand those to a model; listed by name they
// pass.
func TestPolicyStarSparesCodeLoadingEnv(t *testing.T) {
	star := Policy{AllowEnv: []string{"*"}}
	for _, name := range []string{
		"GCONV_PATH", "GLIBC_TUNABLES", "NLSPATH", "LOCPATH", "HOSTALIASES",
		"COR_ENABLE_PROFILING", "COR_PROFILER", "COR_PROFILER_PATH", "COR_PROFILER_PATH_64", "CORECLR_PROFILER_PATH",
		"CORECLR_ENABLE_PROFILING", "DOTNET_STARTUP_HOOKS", "dotnet_additional_deps", "COMPlus_EnableDiagnostics",
		"NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
		"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
		"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4",
	} {
		var na *NotAllowedError
		if err := star.CheckEnv(map[string]string{name: "x"}); !errors.As(err, &na) {
			t.Errorf(`"*" allowed %s: %v`, name, err)
		}
		if err := (&Policy{AllowEnv: []string{name}}).CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf("%s listed by name refused: %v", name, err)
		}
	}
	for _, name := range []string{"OHOS_HDC_SERVER_PORT", "PYTHONIOENCODING", "PYTHONUTF8", "LANG", "TZ", "HOMEDIR", "DOTNETX", "ENVIRONMENT"} {
		if err := star.CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf(`"*" refused the plain setting %s: %v`, name, err)
		}
	}
}

// TestPolicyStarSparesHome: HOME was once pinned here as a plain setting,
// but it chooses code too: under wine it names the wine prefix (~/.wine,
// unless WINEPREFIX is set), whose system32 DLLs and registry every
// Windows program then loads, and on Linux Python's user site-packages
// (~/.local, whose usercustomize runs at every start), bash's start-up
// files and a launcher's own configuration live there. "*" must not hand
// it to a model; listed by name it passes.
func TestPolicyStarSparesHome(t *testing.T) {
	var na *NotAllowedError
	if err := (&Policy{AllowEnv: []string{"*"}}).CheckEnv(map[string]string{"HOME": "/tmp/planted"}); !errors.As(err, &na) {
		t.Errorf(`"*" allowed HOME: %v`, err)
	}
	if err := (&Policy{AllowEnv: []string{"HOME"}}).CheckEnv(map[string]string{"HOME": "/tmp/x"}); err != nil {
		t.Errorf("HOME listed by name refused: %v", err)
	}
}

// Python's user site-packages (usercustomize runs at every start) are
// found through PYTHONUSERBASE, and on Windows through APPDATA; Node
// requires modules by name through NODE_PATH.
func TestPolicyStarSparesModuleSearchEnv(t *testing.T) {
	for _, name := range []string{"PYTHONUSERBASE", "APPDATA", "AppData", "NODE_PATH"} {
		var na *NotAllowedError
		if err := (&Policy{AllowEnv: []string{"*"}}).CheckEnv(map[string]string{name: "/tmp/planted"}); !errors.As(err, &na) {
			t.Errorf(`"*" allowed %s: %v`, name, err)
		}
		if err := (&Policy{AllowEnv: []string{name}}).CheckEnv(map[string]string{name: "/tmp/x"}); err != nil {
			t.Errorf("%s listed by name refused: %v", name, err)
		}
	}
}

// TestPolicyStarSparesSearchPathEnv: on Windows the variables that say
// where programs and DLLs are found choose code as surely as LD_PRELOAD:
// PATH is searched for DLLs and for the programs an allowed program (or
// cmd.exe's literal tokens) starts by name, PATHEXT makes cmd.exe take
// another file for a name, COMSPEC is the shell the C runtime's system()
// and _popen start, and SystemRoot and windir are expanded in the
// registry paths of DLLs Windows loads into a process (Winsock providers,
// COM servers). "*" must not hand those to a model; listed by name they
// pass.
func TestPolicyStarSparesSearchPathEnv(t *testing.T) {
	star := Policy{AllowEnv: []string{"*"}}
	for _, name := range []string{"PATH", "Path", "PATHEXT", "COMSPEC", "ComSpec", "SystemRoot", "SYSTEMROOT", "windir"} {
		var na *NotAllowedError
		if err := star.CheckEnv(map[string]string{name: `C:\planted`}); !errors.As(err, &na) {
			t.Errorf(`"*" allowed %s: %v`, name, err)
		}
		if err := (&Policy{AllowEnv: []string{name}}).CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf("%s listed by name refused: %v", name, err)
		}
	}
	for _, name := range []string{"PATHX", "MYPATH", "SystemDrive"} {
		if err := star.CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf(`"*" refused the plain setting %s: %v`, name, err)
		}
	}
}

// TestPolicyStarSparesConfigAndCommandEnv: a model that may set any
// variable must not be able to point a program at configuration it
// planted or name a command for it to run. Git runs core.sshCommand,
// core.fsmonitor and hooks from the configuration and repository its
// variables name (GIT_CONFIG_COUNT/KEY/VALUE set any key without a file);
// git, ssh and npm read their configuration under USERPROFILE on Windows
// and XDG_CONFIG_HOME on Linux; less runs LESSOPEN on every file; dbghelp
// loads the symbol server DLL a symbol path names (symsrv*x.dll*...), and
// cdb loads extensions from _NT_DEBUGGER_EXTENSION_PATH; PowerShell
// imports modules from PSModulePath by itself. Listed by name they pass.
func TestPolicyStarSparesConfigAndCommandEnv(t *testing.T) {
	star := Policy{AllowEnv: []string{"*"}}
	for _, name := range []string{
		"USERPROFILE", "UserProfile", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "LocalAppData",
		"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "ZDOTDIR",
		"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_GLOBAL", "GIT_SSH_COMMAND",
		"GIT_DIR", "GIT_EXEC_PATH", "git_pager",
		"EDITOR", "VISUAL", "PAGER", "LESSOPEN", "LESSCLOSE", "BROWSER", "SSH_ASKPASS", "PYTHONBREAKPOINT",
		"_NT_SYMBOL_PATH", "_NT_ALT_SYMBOL_PATH", "_NT_DEBUGGER_EXTENSION_PATH", "_nt_symbol_path",
		"PSModulePath", "PSMODULEPATH",
		"npm_config_script_shell", "NPM_CONFIG_NODE_OPTIONS",
		"LUA_INIT", "LUA_INIT_5_4",
		"GIO_EXTRA_MODULES", "GTK_MODULES", "GTK_PATH", "QT_PLUGIN_PATH",
	} {
		var na *NotAllowedError
		if err := star.CheckEnv(map[string]string{name: `C:\planted`}); !errors.As(err, &na) {
			t.Errorf(`"*" allowed %s: %v`, name, err)
		}
		if err := (&Policy{AllowEnv: []string{name}}).CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf("%s listed by name refused: %v", name, err)
		}
	}
	for _, name := range []string{"GITHUB_TOKEN", "GIT", "NT_SYMBOL_PATH", "LUA_PATH", "EDITORCONFIG", "USERNAME", "XDG_RUNTIME_DIR", "NPM_TOKEN"} {
		if err := star.CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf(`"*" refused the plain setting %s: %v`, name, err)
		}
	}
}

// TestPolicyStarSparesLibraryAndShimEnv: OpenSSL reads the configuration
// OPENSSL_CONF names at start in every program that initialises it (git's
// curl, Python's ssl, openssl.exe), and that configuration loads engines
// and providers from any DLL or shared object it names (dynamic_path,
// module=), also from OPENSSL_ENGINES and OPENSSL_MODULES; __COMPAT_LAYER
// makes the Windows loader apply compatibility shims to the program; and
// COM expands %ProgramFiles%, %CommonProgramFiles% and %ProgramData% in
// the registered paths of the DLLs it loads into a process, as it does
// %SystemRoot%. "*" must not hand those to a model; listed by name they
// pass.
func TestPolicyStarSparesLibraryAndShimEnv(t *testing.T) {
	star := Policy{AllowEnv: []string{"*"}}
	for _, name := range []string{
		"OPENSSL_CONF", "openssl_conf", "OPENSSL_ENGINES", "OPENSSL_MODULES",
		"__COMPAT_LAYER", "__compat_layer",
		"ProgramFiles", "PROGRAMFILES", "ProgramFiles(x86)", "ProgramW6432",
		"CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432", "ProgramData",
	} {
		var na *NotAllowedError
		if err := star.CheckEnv(map[string]string{name: `C:\planted`}); !errors.As(err, &na) {
			t.Errorf(`"*" allowed %s: %v`, name, err)
		}
		if err := (&Policy{AllowEnv: []string{name}}).CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf("%s listed by name refused: %v", name, err)
		}
	}
	for _, name := range []string{"OPENSSL_ia32cap", "COMPAT", "ProgramFilesX", "PROGRAM"} {
		if err := star.CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf(`"*" refused the plain setting %s: %v`, name, err)
		}
	}
}

// TestPolicyStarSparesCmdDynamicDirs: cmd.exe's dynamic variables
// %__APPDIR__% (cmd.exe's own directory, which scripts put before the
// system tools they run: %__APPDIR__%findstr.exe) and %__CD__% yield to
// a variable of that name in the environment, so setting one chooses the
// program an allowed batch file runs. "*" must not hand them to a model;
// listed by name they pass.
func TestPolicyStarSparesCmdDynamicDirs(t *testing.T) {
	star := Policy{AllowEnv: []string{"*"}}
	for _, name := range []string{"__APPDIR__", "__appdir__", "__CD__"} {
		var na *NotAllowedError
		if err := star.CheckEnv(map[string]string{name: `C:\planted\`}); !errors.As(err, &na) {
			t.Errorf(`"*" allowed %s: %v`, name, err)
		}
		if err := (&Policy{AllowEnv: []string{name}}).CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf("%s listed by name refused: %v", name, err)
		}
	}
	for _, name := range []string{"APPDIR", "__APP__", "CDX"} {
		if err := star.CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf(`"*" refused the plain setting %s: %v`, name, err)
		}
	}
}
