package main

import (
	"embed"
	"io/fs"

	"github.com/winbridge/winbridge/mcp"
)

// The sep-2640-skills-* scenarios (the io.modelcontextprotocol/skills
// extension): one skill, with a subdirectory so that
// resources/directory/read has a directory to list.

//go:embed skills
var skillFiles embed.FS

func addSkills(srv *mcp.Server) {
	sub, err := fs.Sub(skillFiles, "skills/conformance-demo")
	if err == nil {
		err = srv.AddSkill(sub)
	}
	if err != nil {
		panic(err)
	}
}
