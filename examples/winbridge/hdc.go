package main

import (
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/winexec"
)

// hdcExe is the hdc program the server uses: HDC_EXE, else hdc.exe for
// Windows (WSL or a launcher) and hdc natively.
func hdcExe(s *settings) string {
	if s.cfg.HDCExe != "" {
		return s.cfg.HDCExe
	}
	if winexec.IsWSL() || len(s.cfg.Launcher) > 0 {
		return "hdc.exe"
	}
	return "hdc"
}

// addHDCTools registers the hdc tools; package hdc is not in this build yet.
func addHDCTools(srv *mcp.Server, s *settings, ex *winexec.Executor) {}
