package winexec

import (
	"context"
	"errors"
	"testing"
)

func TestPolicyCheckExe(t *testing.T) {
	var zero Policy
	tests := []struct {
		allow []string
		exe   string
		ok    bool
	}{
		{nil, "hdc.exe", true},
		{nil, "HDC", true},
		{nil, `C:\tools\HDC.EXE`, true},
		{nil, "/mnt/c/tools/hdc.exe", true},
		{nil, "cmd.exe", false},
		{nil, "hdc.exe.bat", false},
		{nil, "", false},
		{[]string{"cmd"}, "cmd.exe", true},
		{[]string{"cmd.exe", "powershell.exe"}, "PowerShell", true},
		{[]string{`C:\Windows\System32\cmd.exe`}, `c:\windows\system32\CMD.EXE`, true},
		{[]string{`C:\Windows\System32\cmd.exe`}, "/mnt/c/Windows/System32/cmd.exe", true},
		{[]string{`C:\Windows\System32\cmd.exe`}, "cmd.exe", false},
		{[]string{`C:\Windows\System32\cmd.exe`}, `D:\evil\cmd.exe`, false},
		{[]string{"*"}, "anything.exe", true},
	}
	for _, tt := range tests {
		p := Policy{AllowExe: tt.allow}
		if tt.allow == nil {
			p = zero
		}
		err := p.CheckExe(tt.exe)
		if (err == nil) != tt.ok {
			t.Errorf("AllowExe %q, exe %q: err = %v, want ok=%v", tt.allow, tt.exe, err, tt.ok)
		}
		var na *NotAllowedError
		if err != nil && (!errors.As(err, &na) || na.Setting != "ALLOW_EXE" || na.Value != tt.exe) {
			t.Errorf("error %v is not a NotAllowedError naming ALLOW_EXE", err)
		}
	}
}

func TestPolicyCheckEnv(t *testing.T) {
	p := Policy{AllowEnv: []string{"HDC_SERVER_PORT"}}
	if err := p.CheckEnv(map[string]string{"hdc_server_port": "1"}); err != nil {
		t.Errorf("allowed name refused: %v", err)
	}
	err := p.CheckEnv(map[string]string{"PATH": "x"})
	var na *NotAllowedError
	if !errors.As(err, &na) || na.Setting != "ALLOW_ENV" || na.Value != "PATH" {
		t.Errorf("err = %v, want NotAllowedError for ALLOW_ENV", err)
	}
	if err := (&Policy{}).CheckEnv(nil); err != nil {
		t.Errorf("no env: %v", err)
	}
}

// countingBackend records whether it ran, to prove refused requests do not.
type countingBackend struct{ runs int }

func (b *countingBackend) Run(_ context.Context, req *Request) (*Result, error) {
	b.runs++
	return &Result{}, nil
}

func TestExecutorRefusesBeforeRunning(t *testing.T) {
	b := &countingBackend{}
	e := NewWithBackend(Config{}, b, nil)
	_, err := e.Run(context.Background(), Request{Exe: "cmd.exe"})
	var na *NotAllowedError
	if !errors.As(err, &na) || na.Setting != "ALLOW_EXE" {
		t.Fatalf("err = %v, want NotAllowedError", err)
	}
	_, err = e.Run(context.Background(), Request{Exe: "hdc", Env: map[string]string{"X": "1"}})
	if !errors.As(err, &na) || na.Setting != "ALLOW_ENV" {
		t.Fatalf("err = %v, want NotAllowedError for env", err)
	}
	if b.runs != 0 {
		t.Fatalf("backend ran %d times for refused requests", b.runs)
	}
	if _, err := e.Run(context.Background(), Request{Exe: "hdc"}); err != nil || b.runs != 1 {
		t.Fatalf("allowed request: err %v runs %d", err, b.runs)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
