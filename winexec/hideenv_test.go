package winexec

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestHideEnv: a variable Config.HideEnv names (ignoring ASCII case)
// reaches no program, whichever backend starts it, with or without the
// request's own variables; the rest of the environment does.
func TestHideEnv(t *testing.T) {
	t.Setenv("WB_HIDDEN_SECRET", "hidden-value")
	t.Setenv("WB_KEPT", "kept-value")
	hide := []string{"wb_hidden_secret"}
	has := func(env []string, kv string) bool { return slices.Contains(env, kv) }
	for name, env := range map[string][]string{
		"direct":     directEnv(map[string]string{"X": "1"}, hide, nil),
		"powershell": (&PowerShell{HideEnv: hide}).env(),
	} {
		if has(env, "WB_HIDDEN_SECRET=hidden-value") || !has(env, "WB_KEPT=kept-value") {
			t.Errorf("%s: environment %q", name, env)
		}
	}
	if env := (&PowerShell{}).env(); !has(env, "WB_KEPT=kept-value") {
		t.Errorf("powershell without HideEnv: %q", env)
	}
	ex := mustNew(t, Config{Backend: BackendLocal, HideEnv: hide, Policy: Policy{AllowExe: []string{"env"}, AllowEnv: []string{"X"}}})
	for _, reqEnv := range []map[string]string{nil, {"X": "1"}} {
		res, err := ex.Run(context.Background(), Request{Exe: "env", Env: reqEnv})
		if err != nil {
			t.Fatal(err)
		}
		if out := res.StdoutText(); strings.Contains(out, "hidden-value") || !strings.Contains(out, "WB_KEPT=kept-value") {
			t.Errorf("local, request env %v: the program saw:\n%s", reqEnv, out)
		}
	}
}
