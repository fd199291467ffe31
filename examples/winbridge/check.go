package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/winbridge/winbridge/winexec"
)

// check reports what the server would use and every problem found, in
// words a user can act on (fixing one at a time, rerunning between, is
// slow). It exits 0 when there is none. hdc is needed only when the hdc
// tools are offered.
func check(s *settings, out io.Writer) int {
	cfg := s.cfg
	backend := cfg.Backend
	if backend == "" || backend == winexec.BackendAuto {
		backend = winexec.AutoBackend(&cfg) + " (auto)"
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	if winexec.IsWSL() {
		platform += ", WSL"
	}
	var problems []string
	ps, psErr := lookPath(cfg.Launcher, cfg.PowerShellExe)
	hdc := hdcExe(s)
	hdcPath, hdcErr := lookPath(cfg.Launcher, hdc)
	usesPS := strings.HasPrefix(backend, winexec.BackendPowerShell) || strings.HasPrefix(backend, winexec.BackendPSHost)
	if usesPS && psErr != nil {
		problems = append(problems, fmt.Sprintf("PowerShell (%s) is not on PATH: under WSL, check that Windows interop is enabled and that %s is reachable, or set -ps-exe (or WIN_PS_EXE) to its full path", cfg.PowerShellExe, cfg.PowerShellExe))
	}
	if hdcErr != nil && s.hdc {
		problems = append(problems, fmt.Sprintf("hdc (%s) is not on PATH: the hdc tools will fail until -hdc-exe (or HDC_EXE) names it; -hdc=false (or WINBRIDGE_HDC=0) offers win_exec without them", hdc))
	}
	if len(cfg.Launcher) > 0 {
		if _, err := exec.LookPath(cfg.Launcher[0]); err != nil {
			problems = append([]string{fmt.Sprintf("the launcher %q is not on PATH", cfg.Launcher[0])}, problems...)
		}
	}
	if p := jobHelperProblem(&cfg); p != "" {
		problems = append(problems, p)
	}
	codepage := "detect per call (UTF-8 first)"
	if cfg.CodePage != 0 {
		codepage = fmt.Sprint(cfg.CodePage)
	}
	fmt.Fprintf(out, "winbridge %s\n", version)
	fmt.Fprintf(out, "platform:   %s\n", platform)
	fmt.Fprintf(out, "backend:    %s\n", backend)
	fmt.Fprintf(out, "powershell: %s\n", found(cfg.PowerShellExe, ps, psErr))
	if s.hdc {
		fmt.Fprintf(out, "hdc:        %s\n", found(hdc, hdcPath, hdcErr))
	} else {
		fmt.Fprintf(out, "hdc:        tools off (-hdc=false)\n")
	}
	fmt.Fprintf(out, "code page:  %s\n", codepage)
	printGuards(s, out)
	if len(problems) == 0 {
		fmt.Fprintln(out, "ok: no problem found")
		return 0
	}
	for _, p := range problems {
		fmt.Fprintf(out, "problem:    %s\n", p)
	}
	return 1
}

// jobHelperProblem says what is wrong with the job helper setting: a
// helper that is not there (every direct call would fail to start), or
// one the backend does not use.
func jobHelperProblem(cfg *winexec.Config) string {
	if cfg.JobHelper == "" {
		return ""
	}
	if b := backendOf(cfg); b != winexec.BackendDirect {
		return fmt.Sprintf("-job-helper (or WINBRIDGE_JOB_HELPER) is set but the %s backend does not use it; only direct does", b)
	}
	path := cfg.JobHelper
	if winexec.IsWindowsPath(path) {
		if len(cfg.Launcher) > 0 {
			return "" // where the launcher maps a Windows path is its own business
		}
		p, err := winexec.WinToWSL(path)
		if err != nil {
			return fmt.Sprintf("the job helper %s has no Linux path: %v", cfg.JobHelper, err)
		}
		path = p
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return fmt.Sprintf("the job helper %s is not a file: every direct call would fail to start; build it with GOOS=windows go build -o jobrun.exe ./winexec/jobrun", cfg.JobHelper)
	}
	return ""
}

func lookPath(launcher []string, name string) (string, error) {
	if len(launcher) > 0 && strings.ContainsAny(name, `\/`) {
		return name, nil // a Windows path the launcher resolves
	}
	return exec.LookPath(name)
}

func found(name, path string, err error) string {
	if err != nil {
		return name + " (not found)"
	}
	return path
}
