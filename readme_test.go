package winbridge

import (
	"bytes"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// goFence matches a fenced Go block of a Markdown file.
var goFence = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestREADMESnippetsCompile builds every Go snippet of README.md as written,
// so that a reader can paste one into a file and run it: each is a whole
// program (package clause and imports shown), gofmt-clean, and compiles
// against this module.
func TestREADMESnippetsCompile(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goFence.FindAllSubmatch(readme, -1)
	if len(blocks) < 2 {
		t.Fatalf("README.md has %d Go snippets; want the server and the client at least", len(blocks))
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH (go test puts its own there): %v", err)
	}
	dir := t.TempDir()
	for i, b := range blocks {
		src := b[1]
		if formatted, err := format.Source(src); err != nil {
			t.Errorf("snippet %d does not parse: %v", i+1, err)
			continue
		} else if !bytes.Equal(formatted, src) {
			t.Errorf("snippet %d is not gofmt-clean; gofmt gives:\n%s", i+1, formatted)
		}
		if !bytes.HasPrefix(src, []byte("package main\n")) {
			t.Errorf("snippet %d does not start with `package main`: a reader cannot run it as written", i+1)
		}
		file := filepath.Join(dir, "snippet.go")
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		// Run in this module so that its imports resolve to this checkout.
		cmd := exec.Command(goTool, "build", "-o", filepath.Join(dir, "snippet.bin"), file)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("snippet %d does not compile: %v\n%s", i+1, err, out)
		}
	}
}
