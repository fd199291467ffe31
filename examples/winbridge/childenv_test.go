package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
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

// TestProgramsInheritNoCredential: the tokens people export for other
// tools (GITHUB_TOKEN, OPENAI_API_KEY) reach no program unless -pass-env
// names them, and not even "*" passes winbridge's own.
func TestProgramsInheritNoCredential(t *testing.T) {
	t.Setenv("WINBRIDGE_HTTP_TOKEN", "tok-0123456789abcdef-secret")
	t.Setenv("GITHUB_TOKEN", "ghp-secret")
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want []string // secrets the program may see
	}{
		{args: nil},
		{args: []string{"-pass-env", "github_token"}, want: []string{"ghp-secret"}},
		{env: map[string]string{"WINBRIDGE_PASS_ENV": "OPENAI_API_KEY"}, want: []string{"sk-secret"}},
		{args: []string{"-pass-env", "*"}, want: []string{"ghp-secret", "sk-secret"}},
	} {
		s, err := parseSettings(append([]string{"-backend", "local", "-allow-exe", "env"}, tc.args...), func(k string) string { return tc.env[k] }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.cfg
		cfg.Logger = slog.New(slog.DiscardHandler)
		ex, err := winexec.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ex.Run(context.Background(), winexec.Request{Exe: "env"})
		ex.Close()
		if err != nil {
			t.Fatal(err)
		}
		out := res.StdoutText()
		for _, secret := range []string{"tok-0123456789abcdef-secret", "ghp-secret", "sk-secret"} {
			if got, want := strings.Contains(out, secret), slices.Contains(tc.want, secret); got != want {
				t.Errorf("%q %v: the program saw %q: %v, want %v", tc.args, tc.env, secret, got, want)
			}
		}
	}
}
