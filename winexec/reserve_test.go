package winexec

import (
	"errors"
	"testing"
)

func TestReserve(t *testing.T) {
	e := mustNew(t, Config{Runner: &recordingBackend{}, Policy: Policy{AllowExe: []string{"hdc.exe", "tool.exe", `C:\x\HDC.EXE`}}})
	if err := e.checkReserved("hdc.exe"); err != nil {
		t.Fatalf("nothing reserved yet: %v", err)
	}
	e.Reserve(`C:\sdk\hdc.exe`, "hdc.run")
	e.Reserve(`bad"name`, "x") // invalid: ignored
	for _, exe := range []string{"hdc", "HDC.exe", "hdc.EXE", `C:\x\hdc.exe`, `c:/x/hdc`, "/mnt/c/x/Hdc.exe", `\\host\share\hdc.exe`, "/usr/bin/hdc"} {
		if err := e.checkReserved(exe); !errors.Is(err, ErrReserved) {
			t.Errorf("%q: err = %v, want ErrReserved", exe, err)
		}
	}
	for _, exe := range []string{"tool.exe", "hdc2.exe", "hdc.com", `C:\hdc\tool.exe`, `bad"name`} {
		if err := e.checkReserved(exe); err != nil {
			t.Errorf("%q: %v", exe, err)
		}
	}
}
