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
	if err := e.Reserve(`C:\sdk\hdc.exe`, "hdc.run"); err != nil {
		t.Fatal(err)
	}
	// An invalid name reserves nothing: the caller must hear of it, or it
	// believes the program is kept from win_exec when it is not.
	for _, bad := range []string{`bad"name`, "hdc.exe ", "", `C:\x\hdc.exe.`} {
		if err := e.Reserve(bad, "x"); !errors.Is(err, ErrInvalidExe) {
			t.Errorf("Reserve(%q) = %v, want ErrInvalidExe", bad, err)
		}
	}
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
