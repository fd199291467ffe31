package mcp_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/winbridge/winbridge/mcp"
)

func TestAddSkillRefuses(t *testing.T) {
	ok := "---\nname: good-skill\ndescription: d\n---\nbody\n"
	many := fstest.MapFS{"SKILL.md": {Data: []byte(ok)}}
	for i := range mcp.MaxSkillFiles {
		many[fmt.Sprintf("f/%d.txt", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	cases := map[string]fstest.MapFS{
		"no SKILL.md":             {"README.md": {Data: []byte(ok)}},
		"no frontmatter":          {"SKILL.md": {Data: []byte("# just markdown\n")}},
		"unclosed frontmatter":    {"SKILL.md": {Data: []byte("---\nname: a\ndescription: b\n")}},
		"no description":          {"SKILL.md": {Data: []byte("---\nname: a\n---\n")}},
		"name with capitals":      {"SKILL.md": {Data: []byte("---\nname: Bad\ndescription: d\n---\n")}},
		"name with --":            {"SKILL.md": {Data: []byte("---\nname: a--b\ndescription: d\n---\n")}},
		"name ending in -":        {"SKILL.md": {Data: []byte("---\nname: a-\ndescription: d\n---\n")}},
		"name that is a path":     {"SKILL.md": {Data: []byte("---\nname: ../etc\ndescription: d\n---\n")}},
		"name not a string":       {"SKILL.md": {Data: []byte("---\nname: 12\ndescription: d\n---\n")}},
		"frontmatter not a map":   {"SKILL.md": {Data: []byte("---\n- a\n- b\n---\n")}},
		"invalid YAML":            {"SKILL.md": {Data: []byte("---\nname: [unclosed\n---\n")}},
		"too many files":          many,
		"too many bytes":          {"SKILL.md": {Data: []byte(ok)}, "big": {Data: make([]byte, mcp.MaxSkillBytes)}},
		"a symlink in the skill":  {"SKILL.md": {Data: []byte(ok)}, "link": {Data: []byte("/etc/passwd"), Mode: 0o777 | 1<<27}},
		"closing line has extras": {"SKILL.md": {Data: []byte("---\nname: a\ndescription: d\n--- x\n")}},
	}
	for name, fsys := range cases {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, nil)
		if err := srv.AddSkill(fsys); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, nil)
	if err := srv.AddSkill(fstest.MapFS{"SKILL.md": {Data: []byte("\ufeff---\r\nname: good-skill\r\ndescription: d\r\n---\r\n")}}); err != nil {
		t.Errorf("BOM and CRLF: %v", err)
	}
}

func TestSkillFrontmatterIsJSON(t *testing.T) {
	fm, err := mcp.ParseSkillFrontmatter([]byte("---\nname: a\ndescription: d\nversion: 2\nmetadata:\n  nested: {k: [1, true, null]}\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(fm)
	if string(b) != `{"description":"d","metadata":{"nested":{"k":[1,true,null]}},"name":"a","version":2}` {
		t.Errorf("frontmatter as JSON: %s", b)
	}
	var back map[string]any
	_ = json.Unmarshal(b, &back)
	if !mcp.SameFrontmatter(fm, back) {
		t.Error("the frontmatter differs from itself after a JSON round trip")
	}
	other := map[string]any{"name": "a", "description": "d", "version": 3}
	if mcp.SameFrontmatter(fm, other) {
		t.Error("different frontmatter compares the same")
	}
}

func FuzzSkillFrontmatter(f *testing.F) {
	for _, s := range []string{"---\nname: a\ndescription: b\n---\n", "---\n---\n", "---\n&a [*a]\n---\n", "---\nk: !!binary AAAA\n---\n", "\ufeff---\r\na: 1\r\n---", "---\n? [a]\n: b\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fm, err := mcp.ParseSkillFrontmatter(b)
		if err != nil {
			return
		}
		if _, err := json.Marshal(fm); err != nil {
			t.Fatalf("accepted frontmatter that does not encode: %v", err)
		}
		if !mcp.SameFrontmatter(fm, fm) {
			t.Fatal("frontmatter differs from itself")
		}
	})
}
