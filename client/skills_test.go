package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

const skillMD = "---\nname: pdf-tools\ndescription: Fill PDF forms\nmetadata:\n  author: test\n  tags: [a, b]\n---\n\nRead references/FORMS.md.\n"

func skillFS() fstest.MapFS {
	return fstest.MapFS{
		"SKILL.md":               {Data: []byte(skillMD)},
		"references/FORMS.md":    {Data: []byte("forms\n")},
		"references/deep/x.json": {Data: []byte(`{"x":1}`)},
		"bin/blob":               {Data: []byte{0xff, 0x00, 0xfe}},
	}
}

func skillClient(t *testing.T, srv *mcp.Server) *client.Client {
	t.Helper()
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(context.Background(), a, &client.Options{ProtocolVersion: mcp.Version20260728})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSkillsListLoadRead(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "skills", Version: "1"}, nil)
	if err := srv.AddSkill(skillFS()); err != nil {
		t.Fatal(err)
	}
	c := skillClient(t, srv)
	ctx := context.Background()
	if got := c.Capabilities().Extensions[mcp.ExtensionSkills]; got["directoryRead"] != true {
		t.Errorf("extension declared as %v", got)
	}
	entries, err := c.ListSkills(ctx)
	if err != nil || len(entries) != 1 {
		t.Fatalf("list: %v %v", entries, err)
	}
	e := entries[0]
	if e.URI != "skill://pdf-tools/SKILL.md" || len(e.Resources.Files) != 4 || e.Frontmatter["description"] != "Fill PDF forms" {
		t.Fatalf("entry: %+v", e)
	}
	if got, err := c.GetSkill(ctx, e.URI); err != nil || got.URI != e.URI {
		t.Fatalf("get: %v %v", got, err)
	}
	var rpcErr *mcp.Error
	if _, err := c.GetSkill(ctx, "skill://nope/SKILL.md"); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
		t.Errorf("get of an unknown skill: %v", err)
	}
	sk, err := c.LoadSkill(ctx, e)
	if err != nil || string(sk.SkillMD) != skillMD {
		t.Fatalf("load: %v", err)
	}
	for _, f := range e.Resources.Files {
		if _, err := sk.ReadFile(ctx, f.URI); err != nil {
			t.Errorf("read %s: %v", f.URI, err)
		}
	}
	if b, err := sk.ReadFile(ctx, "skill://pdf-tools/bin/blob"); err != nil || string(b) != "\xff\x00\xfe" {
		t.Errorf("binary file: %q %v", b, err)
	}
	if _, err := sk.ReadFile(ctx, "test://elsewhere"); !errors.Is(err, client.ErrSkillVerification) {
		t.Errorf("a file the entry does not list: %v", err)
	}
	// Directories: the root lists SKILL.md and two subdirectories.
	var dir mcp.ReadDirectoryResult
	if err := c.Call(ctx, "resources/directory/read", &mcp.ReadDirectoryParams{URI: "skill://pdf-tools"}, &dir); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, r := range dir.Resources {
		kinds[r.URI] = r.MIMEType
	}
	want := map[string]string{"skill://pdf-tools/SKILL.md": "text/markdown", "skill://pdf-tools/references": mcp.MIMETypeDirectory, "skill://pdf-tools/bin": mcp.MIMETypeDirectory}
	if len(kinds) != len(want) {
		t.Errorf("root directory: %v", kinds)
	}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("root directory: %s is %q, want %q (all: %v)", k, kinds[k], v, kinds)
		}
	}
	if err := c.Call(ctx, "resources/directory/read", &mcp.ReadDirectoryParams{URI: "skill://pdf-tools/references"}, &dir); err != nil || len(dir.Resources) != 2 {
		t.Errorf("references: %+v %v", dir.Resources, err)
	}
	err = c.Call(ctx, "resources/directory/read", &mcp.ReadDirectoryParams{URI: e.URI}, &dir)
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
		t.Errorf("directory read of a file: %v", err)
	}
}

// A server whose files do not match its entries: every mismatch is
// refused, and the content is not handed out.
func TestSkillVerificationRefusesTampering(t *testing.T) {
	cases := map[string]string{
		"digest":      strings.Replace(skillMD, "Read", "Wipe", 1),
		"size":        skillMD + "more\n",
		"frontmatter": strings.Replace(skillMD, "Fill PDF forms", "Exfiltrate keys", 1),
	}
	for name, served := range cases {
		t.Run(name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "skills", Version: "1"}, nil)
			if err := srv.AddSkill(skillFS()); err != nil {
				t.Fatal(err)
			}
			c := skillClient(t, srv)
			entries, err := c.ListSkills(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			e := entries[0]
			if name == "frontmatter" {
				// The entry's digest and size describe the tampered file;
				// only the frontmatter tells.
				for i := range e.Resources.Files {
					if e.Resources.Files[i].URI == e.URI {
						e.Resources.Files[i] = mcp.SkillFile{URI: e.URI, Digest: mcp.SkillDigest([]byte(served)), Size: int64(len(served))}
					}
				}
			}
			srv.AddResource(&mcp.Resource{URI: e.URI, Name: "pdf-tools"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: mcp.Ptr(served)}}}, nil
			})
			sk, err := c.LoadSkill(context.Background(), e)
			if !errors.Is(err, client.ErrSkillVerification) || sk != nil {
				t.Fatalf("load of a tampered SKILL.md: %v %v", sk, err)
			}
		})
	}
}
