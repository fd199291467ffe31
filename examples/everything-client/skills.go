package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/winbridge/winbridge/client"
)

// skillsListOnly (sep-2640-client-no-prefetch): list the skills and read
// none of their files: nothing is loaded, so nothing is fetched.
func skillsListOnly(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.ListSkills(ctx)
	return err
}

// skillsLoad (sep-2640-client-verify-*): list the skills, load each (its
// SKILL.md, verified against the entry) and read its other files, each
// verified as it is read. The scenario's server tampers with SKILL.md:
// the load fails verification, and the skill's files are never read.
func skillsLoad(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	entries, err := c.ListSkills(ctx)
	if err != nil {
		return err
	}
	for _, e := range entries {
		sk, err := c.LoadSkill(ctx, e)
		if errors.Is(err, client.ErrSkillVerification) {
			slog.Warn("everything-client: skill refused", "skill", e.URI, "err", err)
			continue
		}
		if err != nil {
			return err
		}
		for _, f := range e.Resources.Files {
			if f.URI == e.URI {
				continue
			}
			if _, err := sk.ReadFile(ctx, f.URI); err != nil {
				return err
			}
		}
	}
	return nil
}
