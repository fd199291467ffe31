package winexec

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestRunLogsNoArguments: a program's arguments and environment are the
// model's or the caller's data and may hold secrets (a password, a
// token). The Executor's debug line logged a backend's error text, and
// direct's ErrRawCommandLine quoted the whole command line: cmd.exe's
// literal tokens with a blank, refused without the job helper, put
// "--password hunter2 x" into the log.
func TestRunLogsNoArguments(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ex := mustNew(t, Config{
		Policy:  Policy{AllowExe: []string{"cmd.exe"}, AllowEnv: []string{"TOOL_TOKEN"}},
		Backend: BackendDirect, Launcher: []string{"/bin/true"}, Logger: log,
	})
	_, err := ex.Run(context.Background(), Request{
		Exe:  "cmd.exe",
		Args: []string{"/C", "tool.exe", "--password", "hunter2 x"},
		Env:  map[string]string{"TOOL_TOKEN": "tok-secret"},
	})
	if !errors.Is(err, ErrRawCommandLine) {
		t.Fatalf("err = %v, want ErrRawCommandLine", err)
	}
	for _, secret := range []string{"hunter2", "tok-secret"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("the log holds %q:\n%s", secret, buf.String())
		}
	}
	if !strings.Contains(buf.String(), "winexec: run") {
		t.Errorf("no run line logged:\n%s", buf.String())
	}
}
