package winexec

import (
	"os"
	"runtime"
	"strings"
)

// IsWSL reports whether this process runs inside WSL: WSL_DISTRO_NAME or
// WSL_INTEROP is set, or /proc/version names Microsoft's kernel.
func IsWSL() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	if os.Getenv("WSL_DISTRO_NAME") != "" || os.Getenv("WSL_INTEROP") != "" {
		return true
	}
	b, err := os.ReadFile("/proc/version")
	return err == nil && strings.Contains(strings.ToLower(string(b)), "microsoft")
}

// AutoBackend names the backend "auto" resolves to:
//
//   - under WSL: pshost, because only the PowerShell backends can kill a
//     process tree from the Windows side and see 32-bit exit codes, and the
//     persistent host avoids PowerShell's start-up on each call;
//   - elsewhere with a launcher configured (wine): direct;
//   - otherwise (native Windows, Linux, macOS): local.
func AutoBackend(cfg *Config) string {
	switch {
	case IsWSL() && len(cfg.Launcher) == 0:
		return BackendPSHost
	case len(cfg.Launcher) > 0:
		return BackendDirect
	default:
		return BackendLocal
	}
}
