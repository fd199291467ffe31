package hdc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/hdc"
)

func TestCheckConnectKey(t *testing.T) {
	for _, k := range []string{
		"FMR0223C13000649", "7001005458323933328a01bce01c3800", "127.0.0.1:5555", "192.168.1.2:8710",
		"::1:5555", "[::1]:5555", "fe80::1%eth0:5555", "COM5", "COM5,115200", "/dev/ttyUSB0", "SERIAL-B",
		"emulator_5554", "FAKE0001", "a", strings.Repeat("A", hdc.MaxConnectKey),
	} {
		if err := hdc.CheckConnectKey(k); err != nil {
			t.Errorf("CheckConnectKey(%q) = %v, want nil", k, err)
		}
	}
	for _, k := range []string{
		"", strings.Repeat("A", hdc.MaxConnectKey+1),
		// hdc commands, words of one, and wait*: hdc finds its command in
		// the -t value.
		"kill", "install", "shell", "start", "any", "target", "boot", "list", "targets", "file", "wait", "wait-for-device", "waitX",
		// global options and white space: hdc re-splits its options.
		"-m", "-", "--", "K -m -s 0.0.0.0:8710", "K\t-m", "K\n-m", "K\r-m", " K", "K ",
		// quotes and shell metacharacters.
		`K"`, `"K"`, "K'", "K;id", "K|x", "K&x", "K$x", "K`x`", "K>x", "K<x", "K(x)", `K\x`, "K*", "K?", "K!", "K#x", "K=x", "K{x}", "K~",
		"K\x00", "K\x7f", "中文", "ｋｉｌｌ",
	} {
		if err := hdc.CheckConnectKey(k); !errors.Is(err, hdc.ErrConnectKey) {
			t.Errorf("CheckConnectKey(%q) = %v, want ErrConnectKey", k, err)
		}
	}
}
