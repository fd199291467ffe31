package winexec

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
	c, err := configFrom(envOf(map[string]string{
		"WINBRIDGE_BACKEND":          "PSHost",
		"WIN_PS_EXE":                 "pwsh.exe",
		"HDC_EXE":                    `C:\sdk\hdc.exe`,
		"ALLOW_EXE":                  "hdc.exe, cmd.exe;C:\\x\\y.exe",
		"ALLOW_ENV":                  "A,B",
		"DEFAULT_TIMEOUT_MS":         "1500",
		"WINBRIDGE_LAUNCHER":         "wine  --flag",
		"WIN_CODEPAGE":               "936",
		"WINBRIDGE_MAX_OUTPUT":       "4096",
		"WINBRIDGE_PSHOST_POOL":      "3",
		"WINBRIDGE_WIN_CWD":          `D:\work`,
		"MAX_TIMEOUT_MS":             "120000",
		"WINBRIDGE_QUEUE_TIMEOUT_MS": "2500",
		"WINBRIDGE_JOB_HELPER":       ` C:\tools\jobrun.exe `,
		"WINBRIDGE_MAX_PROCESSES":    "8",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Backend:        "pshost",
		PowerShellExe:  "pwsh.exe",
		HDCExe:         `C:\sdk\hdc.exe`,
		Policy:         Policy{AllowExe: []string{"hdc.exe", "cmd.exe", `C:\x\y.exe`}, AllowEnv: []string{"A", "B"}},
		DefaultTimeout: 1500 * time.Millisecond,
		Launcher:       []string{"wine", "--flag"},
		CodePage:       936,
		MaxOutput:      4096,
		PoolSize:       3,
		WinCwd:         `D:\work`,
		MaxTimeout:     2 * time.Minute,
		QueueTimeout:   2500 * time.Millisecond,
		JobHelper:      `C:\tools\jobrun.exe`,
		MaxProcesses:   8,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestConfigDefaults(t *testing.T) {
	c, err := configFrom(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.powerShellExe() != "powershell.exe" || c.timeout(0) != DefaultTimeout || c.winCwd() != `C:\` || c.Policy.AllowExe != nil {
		t.Errorf("defaults wrong: %+v", c)
	}
	c, _ = configFrom(envOf(map[string]string{"WIN_CODEPAGE": "auto"}))
	if c.CodePage != 0 {
		t.Errorf("auto code page = %d", c.CodePage)
	}
}

func TestConfigErrorsNameTheSetting(t *testing.T) {
	for setting, value := range map[string]string{
		"WINBRIDGE_BACKEND":          "ssh",
		"DEFAULT_TIMEOUT_MS":         "-5",
		"WIN_CODEPAGE":               "utf8",
		"WINBRIDGE_MAX_OUTPUT":       "lots",
		"WINBRIDGE_PSHOST_POOL":      "0",
		"ALLOW_EXE":                  `tools\hdc.exe`,
		"HDC_EXE":                    `C:\sdk\hdc.exe" x`,
		"ALLOW_ENV":                  "A:PATH",
		"MAX_TIMEOUT_MS":             "0",
		"WINBRIDGE_QUEUE_TIMEOUT_MS": "99999999999999",
		"WINBRIDGE_JOB_HELPER":       "jobrun.exe",
		"WINBRIDGE_MAX_PROCESSES":    "1025",
	} {
		_, err := configFrom(envOf(map[string]string{setting: value}))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Setting != setting || ce.Value != value {
			t.Errorf("%s=%s: err = %v, want ConfigError naming it", setting, value, err)
		}
	}
	_, err := configFrom(envOf(map[string]string{"WIN_CODEPAGE": "12345"}))
	if err == nil {
		t.Error("unsupported code page accepted")
	}
}

func TestNewPicksBackend(t *testing.T) {
	for name, want := range map[string]string{
		BackendLocal: BackendLocal, BackendDirect: BackendDirect,
		BackendPowerShell: BackendPowerShell, BackendPSHost: BackendPSHost,
	} {
		e, err := New(Config{Backend: name})
		if err != nil || e.BackendName() != want {
			t.Errorf("New(%s) = %v, %v", name, e, err)
			continue
		}
		e.Close()
	}
	if _, err := New(Config{Backend: "bogus"}); err == nil {
		t.Error("bogus backend accepted")
	}
	t.Setenv("WSL_DISTRO_NAME", "")
	t.Setenv("WSL_INTEROP", "")
	if got := AutoBackend(&Config{Launcher: []string{"wine"}}); got != BackendDirect {
		t.Errorf("auto with launcher = %s", got)
	}
	if !IsWSL() {
		if got := AutoBackend(&Config{}); got != BackendLocal {
			t.Errorf("auto outside WSL = %s", got)
		}
	}
	t.Setenv("WSL_DISTRO_NAME", "Ubuntu")
	if !IsWSL() || AutoBackend(&Config{}) != BackendPSHost {
		t.Errorf("WSL_DISTRO_NAME set: IsWSL %v auto %s", IsWSL(), AutoBackend(&Config{}))
	}
}

// TestJobHelperSetting: the helper is an absolute path, never a name
// looked up on a search path, and New hands it to the direct backend.
func TestJobHelperSetting(t *testing.T) {
	for _, p := range []string{"jobrun.exe", `tools\jobrun.exe`, "./jobrun.exe", `\\server\share\jobrun.exe`, `\\?\C:\jobrun.exe`, `C:\jobrun.exe" x`, "/opt/job\x00run.exe", "C:"} {
		_, err := configFrom(envOf(map[string]string{"WINBRIDGE_JOB_HELPER": p}))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Setting != "WINBRIDGE_JOB_HELPER" {
			t.Errorf("WINBRIDGE_JOB_HELPER=%q: err = %v, want a ConfigError", p, err)
		}
		if _, err := New(Config{Backend: BackendDirect, JobHelper: p}); !errors.As(err, &ce) {
			t.Errorf("New with JobHelper %q: err = %v, want a ConfigError", p, err)
		}
	}
	for _, p := range []string{`C:\tools\jobrun.exe`, "/opt/winbridge/jobrun.exe", `D:/jobrun.exe`} {
		c, err := configFrom(envOf(map[string]string{"WINBRIDGE_JOB_HELPER": p, "WINBRIDGE_BACKEND": "direct"}))
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		e := mustNew(t, c)
		if d, ok := e.backend.(*Direct); !ok || d.JobHelper != p {
			t.Errorf("%q: backend %#v, want a Direct with the helper", p, e.backend)
		}
	}
}
