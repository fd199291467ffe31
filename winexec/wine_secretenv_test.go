//go:build unix

package winexec

import (
	"context"
	"strings"
	"testing"
)

// TestWineSecretEnv: wine hands a Windows program the whole Linux
// environment, so before, `cmd /c set` and `cmd /c echo %GITHUB_TOKEN%`
// through win_exec printed the tokens of the shell that started the
// server. Now a name that marks a credential is withheld unless the
// operator passes it (PassEnv).
func TestWineSecretEnv(t *testing.T) {
	e := needWine(t)
	t.Setenv("GITHUB_TOKEN", "ghp-wine-secret")
	t.Setenv("OPENAI_API_KEY", "sk-wine-secret")
	t.Setenv("WB_PLAIN", "plain-value")
	ex := mustNew(t, Config{Runner: &Direct{Launcher: e.direct.Launcher}, Policy: Policy{AllowExe: []string{"cmd.exe"}}})
	for _, args := range [][]string{{"/C", "set"}, {"/C", "echo [%GITHUB_TOKEN%][%OPENAI_API_KEY%]"}} {
		res, err := ex.Run(context.Background(), Request{Exe: "cmd.exe", Args: args})
		if err != nil {
			t.Fatal(err)
		}
		out := res.StdoutText() + res.StderrText()
		if strings.Contains(out, "wine-secret") {
			t.Errorf("%q printed a secret:\n%s", args, out)
		}
		if args[1] == "set" && !strings.Contains(strings.ToUpper(out), "WB_PLAIN=PLAIN-VALUE") {
			t.Errorf("%q: the ordinary variable is missing:\n%s", args, out)
		}
	}
	pass := mustNew(t, Config{Runner: &Direct{Launcher: e.direct.Launcher, PassEnv: []string{"GITHUB_TOKEN"}}, Policy: Policy{AllowExe: []string{"cmd.exe"}}})
	res, err := pass.Run(context.Background(), Request{Exe: "cmd.exe", Args: []string{"/C", "echo [%GITHUB_TOKEN%][%OPENAI_API_KEY%]"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(res.StdoutText()); got != "[ghp-wine-secret][%OPENAI_API_KEY%]" {
		t.Errorf("with GITHUB_TOKEN passed: %q", got)
	}
}
