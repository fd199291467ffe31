package client

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/winbridge/winbridge/mcp"
)

// Skills (the io.modelcontextprotocol/skills extension, SEP-2640): a
// server lists Agent Skills with skills/list, each entry carrying the
// frontmatter of its SKILL.md and the digest and size of every file.
// Nothing of a skill is read until it is loaded: LoadSkill reads SKILL.md
// and verifies it against the entry, and Skill.ReadFile verifies every
// other file as it is read. Content that fails is never returned.

// ErrSkillVerification is the error (wrapped) of content that does not
// match its skill entry: a size or digest that differs, a frontmatter
// that differs from the entry's, or a file the entry does not list.
var ErrSkillVerification = errors.New("client: skill content fails verification")

// ListSkills returns the skills the server serves (skills/list). It reads
// no skill's files.
func (c *Client) ListSkills(ctx context.Context, opts ...CallOption) ([]*mcp.SkillEntry, error) {
	return listAll(ctx, c, "skills/list", func(r *mcp.ListSkillsResult) ([]*mcp.SkillEntry, string) {
		return r.Skills, r.NextCursor
	}, opts)
}

// GetSkill returns the entry of one skill by the URI of its SKILL.md.
func (c *Client) GetSkill(ctx context.Context, uri string, opts ...CallOption) (*mcp.SkillEntry, error) {
	var res mcp.GetSkillResult
	if err := c.call(ctx, "skills/get", &mcp.GetSkillParams{URI: uri}, &res, opts...); err != nil {
		return nil, err
	}
	if res.Skill == nil {
		return nil, fmt.Errorf("skills/get %s: the result has no skill", uri)
	}
	return res.Skill, nil
}

// Skill is a loaded skill: its entry and its verified SKILL.md.
type Skill struct {
	Entry *mcp.SkillEntry
	// SkillMD is the content of SKILL.md, verified against the entry.
	SkillMD []byte
	c       *Client
}

// LoadSkill reads the skill's SKILL.md and verifies it against entry: its
// size and digest, when the entry lists its files, and its frontmatter,
// which must be identical to the entry's. It fails with
// ErrSkillVerification otherwise, and the content is not returned.
func (c *Client) LoadSkill(ctx context.Context, entry *mcp.SkillEntry, opts ...CallOption) (*Skill, error) {
	s := &Skill{Entry: entry, c: c}
	b, err := s.ReadFile(ctx, entry.URI, opts...)
	if err != nil {
		return nil, err
	}
	fm, err := mcp.ParseSkillFrontmatter(b)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w: %v", entry.URI, ErrSkillVerification, err)
	}
	if !mcp.SameFrontmatter(fm, entry.Frontmatter) {
		return nil, fmt.Errorf("skill %s: %w: the frontmatter of SKILL.md differs from the entry's", entry.URI, ErrSkillVerification)
	}
	s.SkillMD = b
	return s, nil
}

// ReadFile reads a file of the skill (resources/read) and verifies its
// size and digest against the entry. A skill whose entry lists its files
// ("resources" an array) serves only those: another URI fails. A skill
// with "dynamic" resources publishes no digests, and its files are
// returned as read.
func (s *Skill) ReadFile(ctx context.Context, uri string, opts ...CallOption) ([]byte, error) {
	var want *mcp.SkillFile
	if !s.Entry.Resources.Dynamic {
		for i, f := range s.Entry.Resources.Files {
			if f.URI == uri {
				want = &s.Entry.Resources.Files[i]
				break
			}
		}
		if want == nil {
			return nil, fmt.Errorf("skill %s: %w: %s is not one of its files", s.Entry.URI, ErrSkillVerification, uri)
		}
	}
	res, err := s.c.ReadResource(ctx, uri, opts...)
	if err != nil {
		return nil, err
	}
	b, err := contentBytes(res, uri)
	if err != nil {
		return nil, err
	}
	if want != nil {
		// The size first: a read of another length fails whatever its
		// digest, and costs no hashing.
		if int64(len(b)) != want.Size {
			return nil, fmt.Errorf("skill file %s: %w: %d bytes, the entry says %d", uri, ErrSkillVerification, len(b), want.Size)
		}
		if got := mcp.SkillDigest(b); got != want.Digest {
			return nil, fmt.Errorf("skill file %s: %w: digest %s, the entry says %s", uri, ErrSkillVerification, got, want.Digest)
		}
	}
	return b, nil
}

// contentBytes returns the bytes of the contents of uri in a read result:
// its text as UTF-8, or its blob decoded.
func contentBytes(res *mcp.ReadResourceResult, uri string) ([]byte, error) {
	for _, c := range res.Contents {
		switch {
		case c == nil || c.URI != uri:
		case c.Text != nil:
			return []byte(*c.Text), nil
		case c.Blob != nil:
			b, err := base64.StdEncoding.DecodeString(*c.Blob)
			if err != nil {
				return nil, fmt.Errorf("skill file %s: %w: invalid base64: %v", uri, ErrSkillVerification, err)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("skill file %s: the server returned no content for it", uri)
}
