package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/winexec"
)

// TestProgramsInheritNoServerSecret: the HTTP bearer token and the Redis
// URL are read from the environment so that they never show in ps, but
// every program win_exec started under the local backend (and direct
// under wine) inherited that environment: `cmd.exe /c set`, `env` or any
// allowed program that prints its environment handed the model the token
// that lets anyone reach the server, and the Redis password. They are
// withheld from programs now (winexec.Config.HideEnv), with or without
// variables of the request's own.
func TestProgramsInheritNoServerSecret(t *testing.T) {
	t.Setenv("WINBRIDGE_HTTP_TOKEN", "tok-0123456789abcdef-secret")
	t.Setenv("WINBRIDGE_REDIS_URL", "redis://u:redis-pass-secret@127.0.0.1:6379")
	t.Setenv("WB_PLAIN_SETTING", "still-inherited")
	s, err := parseSettings([]string{"-backend", "local", "-allow-exe", "env", "-allow-env", "X"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.cfg
	cfg.Logger = slog.New(slog.DiscardHandler)
	ex, err := winexec.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	for _, env := range []map[string]string{nil, {"X": "1"}} {
		res, err := ex.Run(context.Background(), winexec.Request{Exe: "env", Env: env})
		if err != nil {
			t.Fatal(err)
		}
		out := res.StdoutText()
		for _, secret := range []string{"tok-0123456789abcdef-secret", "redis-pass-secret"} {
			if strings.Contains(out, secret) {
				t.Errorf("request env %v: the program saw %q", env, secret)
			}
		}
		if !strings.Contains(out, "WB_PLAIN_SETTING=still-inherited") {
			t.Errorf("request env %v: the program lost the rest of the environment:\n%s", env, out)
		}
	}
}
