package winexec

import (
	"errors"
	"fmt"
)

var (
	// ErrRawCommandLine is returned by backends that cannot pass
	// Request.CommandLine verbatim (Direct: WSL interop and wine re-quote
	// argv themselves).
	ErrRawCommandLine = errors.New("winexec: backend cannot pass a raw command line")

	// ErrNUL is returned for an argument, environment variable or path
	// containing a NUL byte, which no Windows command line can carry.
	ErrNUL = errors.New("winexec: NUL byte in argument")

	// ErrInvalidEnv is returned (wrapped, with the name) for an environment
	// variable name no policy may allow: empty, or with "=", ":", "/" or a
	// control character.
	ErrInvalidEnv = errors.New("winexec: invalid environment variable name")

	// ErrHostDied is returned when a PowerShell process exited or broke the
	// protocol in the middle of a request. The request's program may or may
	// not have run.
	ErrHostDied = errors.New("winexec: powershell host died")

	// ErrProtocol is returned when a PowerShell process wrote something that
	// is not the bootstrap's protocol.
	ErrProtocol = errors.New("winexec: protocol error")
)

// A NotAllowedError is returned when the Policy refuses a request. Setting
// names the configuration variable that would allow it.
type NotAllowedError struct {
	Setting string // "ALLOW_EXE" or "ALLOW_ENV"
	Value   string // the refused executable or variable name
}

// settingFlags are the winbridge flags of the settings a refusal names: the
// reader may have configured either, and should not have to guess.
var settingFlags = map[string]string{"ALLOW_EXE": "-allow-exe", "ALLOW_ENV": "-allow-env"}

func (e *NotAllowedError) Error() string {
	if f := settingFlags[e.Setting]; f != "" {
		return fmt.Sprintf("winexec: %q is not allowed; add it to %s (the %s flag of winbridge)", e.Value, e.Setting, f)
	}
	return fmt.Sprintf("winexec: %q is not allowed; add it to %s", e.Value, e.Setting)
}

// A StartError is returned when the program could not be started at all
// (not found, not executable, bad working directory).
type StartError struct {
	Exe string
	Err error
}

func (e *StartError) Error() string { return fmt.Sprintf("winexec: start %s: %v", e.Exe, e.Err) }

func (e *StartError) Unwrap() error { return e.Err }

// A ConfigError reports a bad configuration value.
type ConfigError struct {
	Setting string
	Value   string
	Err     error
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("winexec: bad %s=%q: %v", e.Setting, e.Value, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }
