package main

import (
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/winexec"
)

// hdcExe is the hdc program the server uses: HDC_EXE, else what package
// hdc picks for the backend (hdc.exe for Windows programs, hdc natively).
func hdcExe(s *settings) string {
	if s.cfg.HDCExe != "" {
		return s.cfg.HDCExe
	}
	if winexec.IsWSL() || len(s.cfg.Launcher) > 0 {
		return "hdc.exe"
	}
	return "hdc"
}

// addHDCTools registers the hdc tools.
func addHDCTools(srv *mcp.Server, s *settings, ex *winexec.Executor) {
	hdc.AddTools(srv, ex, &hdc.Options{DottedNames: s.dotNaming, Exe: s.cfg.HDCExe, LocalRoots: s.hdcRoots})
}
