package winexec

import (
	"errors"
	"fmt"
)

// ErrReserved is returned (wrapped, naming the program and the tools to
// use) by the win_exec tool for a program that Executor.Reserve handed to
// tools of their own.
var ErrReserved = errors.New("winexec: program reserved for its own tools")

// Reserve hands the program exe to tools that check its arguments
// themselves (tool names the main one for the refusal, e.g. "hdc_run"): the
// generic win_exec tool of AddTools then refuses every program with the
// same file name, in any directory and spelling (ASCII case, with or
// without ".exe"), so a model cannot step around those checks by calling
// win_exec. Executor.Run itself, which those tools call, is unaffected.
// The hdc package reserves its hdc program. This is a guard against a
// detour, not a sandbox: with ALLOW_EXE=* or a shell on the allowlist,
// win_exec can still reach the program through the shell.
//
// Reserve returns an error wrapping ErrInvalidExe, and reserves nothing,
// when exe is not a valid program name: the tools could not run it, and
// a caller that ignored the failure would believe a program of a similar
// name ("hdc.exe" for "hdc.exe ") kept from win_exec when it is not.
func (e *Executor) Reserve(exe, tool string) error {
	p, err := parseProgram(exe)
	if err != nil {
		return fmt.Errorf("reserving a program for %s: %w", tool, err)
	}
	e.resMu.Lock()
	defer e.resMu.Unlock()
	if e.reserved == nil {
		e.reserved = make(map[string]string)
	}
	e.reserved[baseKey(p)] = tool
	return nil
}

// checkReserved refuses exe when its file name, or that of the program
// the policy would run in its place, is reserved.
func (e *Executor) checkReserved(exe string) error {
	e.resMu.RLock()
	defer e.resMu.RUnlock()
	if len(e.reserved) == 0 {
		return nil
	}
	names := []string{exe}
	if run, err := e.cfg.Policy.checkExe(exe, e.cfg.HDCExe); err == nil {
		names = append(names, run)
	}
	for _, n := range names {
		p, err := parseProgram(n)
		if err != nil {
			continue // Run refuses it
		}
		if tool, ok := e.reserved[baseKey(p)]; ok {
			return fmt.Errorf("%w: use %s (and the tools beside it) for %s, which check its commands; win_exec does not run it", ErrReserved, tool, exe)
		}
	}
	return nil
}
