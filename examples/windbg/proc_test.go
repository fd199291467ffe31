package main

import (
	"os/exec"
	"strings"
	"testing"
)

// cdb, and every program it starts (a SrcSrv fetch command, an extension's
// helper, .create where allowed), must not inherit the server's own
// settings: WINDBG_HTTP_TOKEN is the key to the server, and under wine a
// Windows process sees the whole Unix environment.
func TestProcDropsServerSettings(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	t.Setenv("WINDBG_HTTP_TOKEN", "tok-0123456789abcdef")
	t.Setenv("WINDBG_REMOTE", "tcp:server=h,port=1,password=hunter22")
	t.Setenv("_NT_SYMBOL_PATH", `C:\symbols`)
	p, err := startProc([]string{env})
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	var out strings.Builder
	for data := range p.chunks {
		out.Write(data)
	}
	<-p.exited
	got := out.String()
	for _, bad := range []string{"WINDBG_HTTP_TOKEN", "tok-0123456789abcdef", "hunter22"} {
		if strings.Contains(got, bad) {
			t.Errorf("the child's environment holds %q:\n%s", bad, got)
		}
	}
	if !strings.Contains(got, `_NT_SYMBOL_PATH=C:\symbols`) {
		t.Errorf("the child lost the debugger's own variables:\n%s", got)
	}
}
