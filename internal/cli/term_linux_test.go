package cli_test

import (
	"os"
	"testing"

	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/internal/cli/clitest"
)

func TestIsTerminal(t *testing.T) {
	pt, tty := clitest.OpenPTY(t)
	if !cli.IsTerminal(tty) || !cli.IsTerminal(pt) {
		t.Error("a pty is not a terminal")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, f := range []*os.File{null, r, w} {
		if cli.IsTerminal(f) {
			t.Errorf("%s is taken for a terminal", f.Name())
		}
	}
}
