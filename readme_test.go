package winbridge

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
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

// goModFiles returns the go.mod files of this repository: the library's
// and those of the nested modules, which ./... does not enter.
func goModFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

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
	mods := goModFiles(t)
	if len(mods) < 3 {
		t.Fatalf("found the go.mod files %v; want the library's, redisstore's and bench's at least", mods)
	}
	for _, name := range mods {
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
		t.Fatalf("found %d requirements in %v; the pattern no longer reads them", len(required), mods)
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

// envReaders are the functions through which the programs and packages of
// this module read an environment variable: the name is one of their
// string arguments.
var envReaders = map[string]bool{
	"Getenv": true, "LookupEnv": true, // os
	"getenv": true, "envInt": true, "envDur": true, "dur": true, "num": true, "positiveMs": true, // settings parsers
}

// envSetElsewhere are variables the code reads that a user does not set:
// the system or another program sets them.
var envSetElsewhere = map[string]string{
	"WSL_DISTRO_NAME": "set by WSL",
	"WSL_INTEROP":     "set by WSL",
	"ComSpec":         "set by Windows",
	"FAKEHDC_STATE":   "set by the demo for its fake hdc",
}

// TestEnvVarsDocumented checks that every environment variable the code
// outside tests reads is named in README.md or docs/*.md, where a user
// looks for the settings: a variable only the code knows is a setting
// nobody can find. Variables the conformance suite sets (MCP_CONFORMANCE_*)
// and those of envSetElsewhere are exempt. And the other way round: every
// variable of ours the docs name is still read or set by some code, test
// or script, so a renamed or removed setting does not live on in the docs.
func TestEnvVarsDocumented(t *testing.T) {
	docs := readDocs(t)
	found := map[string]string{} // name -> file that reads it
	var code []byte              // every Go file, tests included
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", "bench", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if path != "readme_test.go" { // which names variables to check them
			code = append(code, src...)
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
		if err != nil {
			return err
		}
		consts := map[string]string{}
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								consts[name.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch x := call.Fun.(type) {
			case *ast.Ident:
				fn = x.Name
			case *ast.SelectorExpr:
				fn = x.Sel.Name
			}
			if !envReaders[fn] {
				return true
			}
			for _, arg := range call.Args {
				var name string
				switch a := arg.(type) {
				case *ast.BasicLit:
					if a.Kind == token.STRING {
						name, _ = strconv.Unquote(a.Value)
					}
				case *ast.Ident:
					name = consts[a.Name]
				}
				if envName.MatchString(name) {
					found[name] = path
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"WINBRIDGE_BACKEND", "WINBRIDGE_HTTP_TOKEN", "WINDBG_MCP_TIMEOUT", "WINDBG_CDB"} {
		if found[want] == "" {
			t.Fatalf("found no read of %s; the scan no longer sees how the code reads variables", want)
		}
	}
	for name, path := range found {
		if envSetElsewhere[name] != "" || strings.HasPrefix(name, "MCP_CONFORMANCE_") {
			continue
		}
		if !regexp.MustCompile(`\b` + name + `\b`).Match(docs) {
			t.Errorf("%s reads the environment variable %s, which README.md and docs/*.md never name", path, name)
		}
	}
	// The other way: a variable of ours that the docs name is one some
	// code (a program, a test, a script) still reads or sets.
	for _, dir := range []string{"scripts", ".ci"} {
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if b, err := os.ReadFile(filepath.Join(dir, f.Name())); err == nil {
				code = append(code, b...)
			}
		}
	}
	for _, name := range ourEnvName.FindAll(docs, -1) {
		if !bytes.Contains(code, name) {
			t.Errorf("the docs name the environment variable %s, which no code or script of this repository reads", name)
		}
	}
}

// ourEnvName matches the environment variables this repository defines.
var ourEnvName = regexp.MustCompile(`\b(?:WINBRIDGE|WINDBG|EVERYTHING_SERVER|FAKECDB|FAKEHDC)_[A-Z0-9_]+`)

// envName is what an environment variable of ours looks like.
var envName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*_[A-Z0-9_]+$|^ComSpec$`)

// readDocs returns README.md and docs/*.md, concatenated.
func readDocs(t *testing.T) []byte {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, name := range append([]string{"README.md"}, files...) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
		all = append(all, '\n')
	}
	return all
}

// TestArchitectureListsPackages checks that the package table of
// docs/ARCHITECTURE.md names every package of the repository (the bench
// module aside, which PERFORMANCE.md describes), so that a package added
// later is placed in the picture; a command under examples/ is covered by
// the `examples/...` row.
func TestArchitectureListsPackages(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", "bench", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.ToSlash(filepath.Dir(path))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !dirs["mcp/mcphttp"] || !dirs["internal/jsonscan"] {
		t.Fatalf("the walk found %d package directories, not mcp/mcphttp or internal/jsonscan", len(dirs))
	}
	for dir := range dirs {
		if dir == "." || dir == "examples" {
			continue // the module's and examples' doc.go
		}
		name := dir
		if strings.HasPrefix(dir, "examples/") {
			name = strings.TrimPrefix(dir, "examples/")
		}
		if !bytes.Contains(doc, []byte("`"+name+"`")) {
			t.Errorf("docs/ARCHITECTURE.md does not name the package %s (as `%s`)", dir, name)
		}
	}
}

var (
	fence     = regexp.MustCompile("(?s)```.*?```")
	codeSpan  = regexp.MustCompile("`[^`\n]*`")
	heading   = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*$`)
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	linkText  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	schemeURL = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

// anchors returns the anchors GitHub gives the headings of a Markdown
// file: lower case, punctuation dropped, spaces as hyphens, and -1, -2...
// after a repeated one.
func anchors(md []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllSubmatch(fence.ReplaceAll(md, nil), -1) {
		text := linkText.ReplaceAllString(string(m[1]), "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocLinks checks every relative link of README.md and docs/*.md: the
// file exists, and an anchor names a heading of the file it points at.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	links := 0
	for _, name := range files {
		md, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text := codeSpan.ReplaceAll(fence.ReplaceAll(md, nil), nil)
		for _, m := range mdLink.FindAllSubmatch(text, -1) {
			link := string(m[1])
			if schemeURL.MatchString(link) {
				continue
			}
			links++
			path, frag, _ := strings.Cut(link, "#")
			target := name
			if path != "" {
				target = filepath.Join(filepath.Dir(name), path)
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, link)
				continue
			}
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			tmd, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(tmd)[frag] {
				t.Errorf("%s links to %s: %s has no heading with the anchor #%s", name, link, target, frag)
			}
		}
	}
	if links < 20 {
		t.Fatalf("found %d relative links; the pattern no longer reads them", links)
	}
}
