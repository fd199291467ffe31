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

// goModFiles are the go.mod files of this repository: the library's and
// those of the nested modules, which ./... does not enter.
var goModFiles = []string{"go.mod", "mcp/mcphttp/redisstore/go.mod", "bench/go.mod"}

// requireLine matches a requirement of a go.mod, in a block or on its own.
var requireLine = regexp.MustCompile(`(?m)^(?:require\s+|\t)([a-z0-9.-]+\.[a-z]+/[^\s]+)\s+v[^\s]+`)

// TestDependenciesListed checks docs/DEPENDENCIES.md against the go.mod
// files: it names every module one of them requires (indirect ones
// included: they are downloaded and built too), and names in its tables no
// module that none requires any longer.
func TestDependenciesListed(t *testing.T) {
	doc, err := os.ReadFile("docs/DEPENDENCIES.md")
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]bool{}
	for _, name := range goModFiles {
		mod, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(mod, []byte("\nrequire")) {
			t.Fatalf("%s has no require directive; the pattern below no longer fits it", name)
		}
		for _, m := range requireLine.FindAllSubmatch(mod, -1) {
			path := string(m[1])
			if path == "github.com/winbridge/winbridge" {
				continue // the library itself, replaced by this checkout
			}
			required[path] = true
			if !bytes.Contains(doc, []byte("`"+path+"`")) {
				t.Errorf("%s requires %s, which docs/DEPENDENCIES.md does not name (as `%s`)", name, path, path)
			}
		}
	}
	if len(required) < 10 {
		t.Fatalf("found %d requirements in %v; the pattern no longer reads them", len(required), goModFiles)
	}
	// Module paths named in the first column of the tables.
	cell := regexp.MustCompile("`([a-z0-9.-]+\\.[a-z]+/[^`]+)`")
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("| `")) {
			continue
		}
		first := bytes.SplitN(line, []byte(" | "), 2)[0]
		for _, m := range cell.FindAllSubmatch(first, -1) {
			if !required[string(m[1])] {
				t.Errorf("docs/DEPENDENCIES.md lists %s, which no go.mod requires", m[1])
			}
		}
	}
}
