package winexec

import (
	"path"
	"strings"
)

// DefaultAllowExe is the executable allowlist used when Policy.AllowExe is
// nil: only the HarmonyOS device connector.
var DefaultAllowExe = []string{"hdc.exe"}

// Policy decides which requests may run. The zero value allows only
// DefaultAllowExe and no environment variables.
type Policy struct {
	// AllowExe lists allowed executables (setting ALLOW_EXE). An entry
	// without a directory matches any program with that basename, compared
	// case-insensitively and with or without ".exe"; an entry with a
	// directory matches that absolute path only (Windows or Linux form, case
	// and separators ignored). "*" allows every program. Nil means
	// DefaultAllowExe.
	AllowExe []string

	// AllowEnv lists the environment variable names a request may set
	// (setting ALLOW_ENV), compared case-insensitively as Windows does. "*"
	// allows every name.
	AllowEnv []string
}

// CheckExe returns a *NotAllowedError unless exe is allowed.
func (p *Policy) CheckExe(exe string) error {
	list := p.AllowExe
	if list == nil {
		list = DefaultAllowExe
	}
	for _, a := range list {
		if exeMatches(a, exe) {
			return nil
		}
	}
	return &NotAllowedError{Setting: "ALLOW_EXE", Value: exe}
}

// CheckEnv returns a *NotAllowedError for the first variable in env that is
// not allowed.
func (p *Policy) CheckEnv(env map[string]string) error {
	for k := range env {
		if !p.envAllowed(k) {
			return &NotAllowedError{Setting: "ALLOW_ENV", Value: k}
		}
	}
	return nil
}

func (p *Policy) envAllowed(name string) bool {
	for _, a := range p.AllowEnv {
		if a == "*" || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// normPath lower-cases p and turns every separator into "/", so Windows and
// Linux forms of the same absolute path compare equal after translation.
func normPath(p string) string { return strings.ToLower(strings.ReplaceAll(p, `\`, "/")) }

func stripExe(name string) string {
	if len(name) > 4 && strings.EqualFold(name[len(name)-4:], ".exe") {
		return name[:len(name)-4]
	}
	return name
}

func exeMatches(allowed, exe string) bool {
	if allowed == "*" {
		return true
	}
	if allowed == "" || exe == "" {
		return false
	}
	a, e := normPath(allowed), normPath(exe)
	if strings.Contains(a, "/") {
		// Absolute entry: compare whole paths, also across the WSL/Windows
		// forms of the same file.
		if stripExe(a) == stripExe(e) {
			return true
		}
		aw, err1 := WinToWSL(allowed)
		ew, err2 := WinToWSL(exe)
		return err1 == nil && err2 == nil && stripExe(normPath(aw)) == stripExe(normPath(ew))
	}
	return stripExe(path.Base(e)) == stripExe(a)
}
