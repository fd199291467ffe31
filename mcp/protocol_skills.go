package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/winbridge/winbridge/transport"
)

// skillsCapability is what the server declares of the skills extension:
// it serves resources/directory/read too.
func skillsCapability() map[string]any { return map[string]any{"directoryRead": true} }

func (ss *ServerSession) skillsList(_ context.Context, r *transport.Request) (any, error) {
	entries, next, ci, err := listPage(ss, r, &ss.srv.skills, func(sk *serverSkill, _ string) *SkillEntry { return sk.entry })
	if err != nil {
		return nil, err
	}
	res := &ListSkillsResult{Skills: nonNil(entries), NextCursor: next}
	ss.finishCacheable(ci, &res.CacheHint, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) skillsGet(_ context.Context, r *transport.Request) (any, error) {
	var p GetSkillParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	sk, ok := ss.srv.skills.get(p.URI)
	if !ok {
		return nil, invalidParams(fmt.Sprintf("unknown skill %q: skills/get takes the uri of a listed SKILL.md", p.URI), nil)
	}
	res := &GetSkillResult{Skill: sk.entry}
	ss.finishCacheable(ci, &res.CacheHint, &res.ResultEnvelope)
	return res, nil
}

// readDirectory answers resources/directory/read for the directories of
// the skills the server serves; any other URI is invalid params.
func (ss *ServerSession) readDirectory(_ context.Context, r *transport.Request) (any, error) {
	var p ReadDirectoryParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	var children []*Resource
	found := false
	for _, sk := range ss.srv.skills.all() {
		if c, ok := sk.dirs[strings.TrimSuffix(p.URI, "/")]; ok {
			children, found = c, true
			break
		}
	}
	if !found {
		return nil, invalidParams(fmt.Sprintf("%q is not a directory this server serves", p.URI), nil)
	}
	var reg registry[*Resource]
	for _, c := range children {
		reg.add(c.URI, c)
	}
	page, next, err := reg.page(p.Cursor, ss.srv.opts.PageSize)
	if err != nil {
		return nil, err
	}
	out := make([]*Resource, len(page))
	for i, c := range page {
		out[i] = forResource(c, ci.version)
	}
	res := &ReadDirectoryResult{Resources: out, NextCursor: next}
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}
