package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// This file holds the skills extension (io.modelcontextprotocol/skills,
// SEP-2640): a server serves Agent Skills, each a directory with a SKILL.md
// at its root, as resources under skill://<name>/, lists them with
// skills/list and skills/get, and its directories with
// resources/directory/read. Each listing entry carries the SKILL.md
// frontmatter and the digest and size of every file, so that a client can
// verify what it reads before it uses it.

// ExtensionSkills is the extension identifier of skills.
const ExtensionSkills = "io.modelcontextprotocol/skills"

// Bounds of one skill (SEP-2640's limits, which AddSkill enforces).
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
)

// MIMETypeDirectory is the MIME type of a directory resource.
const MIMETypeDirectory = "inode/directory"

// SkillEntry describes one skill: the URI of its SKILL.md, the SKILL.md
// frontmatter as a JSON object, and its files.
type SkillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   SkillResources `json:"resources"`
	Meta        Meta           `json:"_meta,omitzero"`
}

// SkillResources are the files of a skill: a complete list, or "dynamic"
// when the server publishes none.
type SkillResources struct {
	Files   []SkillFile
	Dynamic bool
}

// MarshalJSON implements json.Marshaler.
func (r SkillResources) MarshalJSON() ([]byte, error) {
	if r.Dynamic {
		return []byte(`"dynamic"`), nil
	}
	return json.Marshal(nonNil(r.Files))
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *SkillResources) UnmarshalJSON(b []byte) error {
	if string(b) == `"dynamic"` {
		*r = SkillResources{Dynamic: true}
		return nil
	}
	r.Dynamic = false
	return json.Unmarshal(b, &r.Files)
}

// SkillFile is one file of a skill: its URI, "sha256:<hex>" of its bytes,
// and its size in bytes.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// SkillDigest returns the digest of a skill file's content.
func SkillDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ListSkillsResult answers skills/list.
type ListSkillsResult struct {
	Skills     []*SkillEntry `json:"skills"`
	NextCursor string        `json:"nextCursor,omitempty"`
	CacheHint
	ResultEnvelope
}

// GetSkillParams are the params of skills/get.
type GetSkillParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitzero"`
}

// GetSkillResult answers skills/get.
type GetSkillResult struct {
	Skill *SkillEntry `json:"skill"`
	CacheHint
	ResultEnvelope
}

// ReadDirectoryParams are the params of resources/directory/read.
type ReadDirectoryParams struct {
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
	Meta   Meta   `json:"_meta,omitzero"`
}

// ReadDirectoryResult answers resources/directory/read: the direct
// children of a directory, subdirectories with MIMETypeDirectory.
type ReadDirectoryResult struct {
	Resources  []*Resource `json:"resources"`
	NextCursor string      `json:"nextCursor,omitempty"`
	ResultEnvelope
}

// serverSkill is a skill the server serves.
type serverSkill struct {
	entry *SkillEntry
	dirs  map[string][]*Resource // directory URI -> its direct children
}

// validSkillName reports whether name keeps the Agent Skills naming
// rule's characters: 1 to 64 of a-z 0-9 and '-', with no '-' at either
// end. (The rule's "no --" is checked where this is called.)
func validSkillName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// AddSkill serves the skill in fsys, a directory with SKILL.md at its root:
// every file becomes a resource under skill://<name>/, where name is the
// frontmatter's, and the skill is listed by skills/list. It replaces a
// skill of the same name. It fails, serving nothing, when SKILL.md is
// missing, its frontmatter lacks a name or description or is not YAML
// that maps to JSON, the name breaks the Agent Skills rules, or the skill
// has more than MaxSkillFiles files or MaxSkillBytes bytes.
func (s *Server) AddSkill(fsys fs.FS) error {
	files := map[string][]byte{}
	var total int64
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			if d.IsDir() {
				return nil
			}
			return fmt.Errorf("%s: not a regular file", p) // links could leave the skill
		}
		if len(files) >= MaxSkillFiles {
			return fmt.Errorf("more than %d files", MaxSkillFiles)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if total += int64(len(b)); total > MaxSkillBytes {
			return fmt.Errorf("more than %d bytes", MaxSkillBytes)
		}
		files[p] = b
		return nil
	})
	if err != nil {
		return fmt.Errorf("mcp: AddSkill: %w", err)
	}
	skillMD, ok := files["SKILL.md"]
	if !ok {
		return errors.New("mcp: AddSkill: no SKILL.md at the root")
	}
	fm, err := ParseSkillFrontmatter(skillMD)
	if err != nil {
		return fmt.Errorf("mcp: AddSkill: SKILL.md: %w", err)
	}
	name, _ := fm["name"].(string)
	desc, _ := fm["description"].(string)
	if name == "" || desc == "" {
		return errors.New("mcp: AddSkill: SKILL.md frontmatter needs a name and a description")
	}
	if !validSkillName(name) || strings.Contains(name, "--") {
		return fmt.Errorf("mcp: AddSkill: skill name %q breaks the Agent Skills naming rules", name)
	}
	root := "skill://" + name
	sk := &serverSkill{entry: &SkillEntry{URI: root + "/SKILL.md", Frontmatter: fm}, dirs: map[string][]*Resource{root: nil}}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	type served struct {
		r *Resource
		b []byte
	}
	var all []served
	dirURI := func(d string) string {
		if d == "." {
			return root
		}
		return root + "/" + d
	}
	addChild := func(parent string, r *Resource) {
		if !containsURI(sk.dirs[parent], r.URI) {
			sk.dirs[parent] = append(sk.dirs[parent], r)
		}
	}
	for _, p := range paths {
		b := files[p]
		r := &Resource{URI: root + "/" + p, Name: path.Base(p), Description: p + ", a file of the " + name + " skill",
			MIMEType: skillMIMEType(p), Size: Ptr(int64(len(b)))}
		if p == "SKILL.md" {
			r.Name, r.Description = name, desc
		}
		sk.entry.Resources.Files = append(sk.entry.Resources.Files, SkillFile{URI: r.URI, Digest: SkillDigest(b), Size: int64(len(b))})
		// The file is a child of its directory, and every directory on
		// the way of its parent.
		addChild(dirURI(path.Dir(p)), r)
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			addChild(dirURI(path.Dir(d)), &Resource{URI: dirURI(d), Name: path.Base(d), MIMEType: MIMETypeDirectory})
		}
		all = append(all, served{r, b})
	}
	if old, ok := s.skills.get(sk.entry.URI); ok {
		var uris []string
		for _, f := range old.entry.Resources.Files {
			uris = append(uris, f.URI)
		}
		s.RemoveResources(uris...)
	}
	for _, f := range all {
		b := f.b
		s.AddResource(f.r, func(_ context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
			c := &ResourceContents{URI: req.Params.URI, MIMEType: f.r.MIMEType}
			if utf8.Valid(b) {
				c.Text = Ptr(string(b))
			} else {
				c.Blob = Ptr(base64.StdEncoding.EncodeToString(b))
			}
			return &ReadResourceResult{Contents: []*ResourceContents{c}}, nil
		})
	}
	s.skills.add(sk.entry.URI, sk)
	return nil
}

func containsURI(rs []*Resource, uri string) bool {
	for _, r := range rs {
		if r.URI == uri {
			return true
		}
	}
	return false
}

// skillMIMEType is the MIME type of a skill file, by its extension. A
// table rather than package mime, whose lookup reads the system's MIME
// files on first use.
func skillMIMEType(p string) string {
	if t, ok := skillMIMETypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	return "application/octet-stream"
}

var skillMIMETypes = map[string]string{
	".md": "text/markdown", ".txt": "text/plain", "": "text/plain", ".json": "application/json",
	".yaml": "application/yaml", ".yml": "application/yaml", ".py": "text/x-python", ".sh": "text/x-shellscript",
	".js": "text/javascript", ".ts": "text/plain", ".go": "text/plain", ".html": "text/html", ".csv": "text/csv",
	".xml": "application/xml", ".png": "image/png", ".jpg": "image/jpeg", ".svg": "image/svg+xml", ".pdf": "application/pdf",
}

// ParseSkillFrontmatter returns the YAML frontmatter at the start of a
// SKILL.md (between "---" lines) as a JSON object: what a skill entry
// carries, and what a client compares it with.
func ParseSkillFrontmatter(b []byte) (map[string]any, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, errors.New("no frontmatter: the file does not start with a --- line")
	}
	var body string
	if i := strings.Index(rest, "\n---"); i >= 0 {
		after := rest[i+len("\n---"):]
		if line, _, _ := strings.Cut(after, "\n"); strings.TrimRight(line, " \t") != "" {
			return nil, errors.New("the frontmatter's closing --- line has more on it")
		}
		body = rest[:i]
	} else {
		return nil, errors.New("the frontmatter has no closing --- line")
	}
	var v any
	if err := yaml.Unmarshal([]byte(body), &v); err != nil {
		return nil, fmt.Errorf("frontmatter: %w", err)
	}
	// Through JSON: the frontmatter travels as JSON, and compares as such.
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("frontmatter does not map to JSON: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil || m == nil {
		return nil, errors.New("frontmatter is not a mapping")
	}
	return m, nil
}

// SameFrontmatter reports whether two frontmatter objects are identical in
// content, as JSON values.
func SameFrontmatter(a, b map[string]any) bool {
	na, err1 := json.Marshal(a)
	nb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(na, &x) != nil || json.Unmarshal(nb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
