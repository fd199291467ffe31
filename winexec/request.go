package winexec

import (
	"time"
)

// A Request describes one program run. The zero value of every field except
// Exe is meaningful.
type Request struct {
	// Exe is the program: a name resolved by the Windows (or local)
	// search path such as "hdc.exe", or an absolute Windows or Linux path.
	// Relative paths, and names Windows would parse further (quotes,
	// control characters, cmd.exe metacharacters, trailing dots), are
	// refused with ErrInvalidExe by every backend.
	Exe string

	// Args are the arguments after the program name. Backends for Windows
	// turn them into one command line with BuildCommandLine.
	Args []string

	// CommandLine, when not empty, is passed to Windows verbatim after the
	// quoted program name instead of a command line built from Args. It
	// exists for programs that do not parse their command line with the
	// MSVCRT rules, cmd.exe above all (see CmdCommandLine). Backends that
	// cannot pass a raw command line return ErrRawCommandLine.
	CommandLine string

	// Cwd is the working directory: an absolute path in Linux or Windows
	// form, never a network share other than WSL's or a device path
	// (ErrInvalidCwd). Empty means the
	// backend's default: a Windows directory for Windows programs (never a
	// UNC path onto the Linux file system), the current directory for Local.
	Cwd string

	// Env holds variables added to the child's environment. The Executor
	// refuses names outside its Policy.
	Env map[string]string

	// Stdin is the child's entire standard input. Nil means empty input;
	// the server's own stdin is never passed on.
	Stdin []byte

	// Timeout bounds the run; on expiry the whole process tree is killed.
	// Zero means the Executor's default, or no limit for a bare Backend.
	Timeout time.Duration

	// MaxOutput caps the bytes kept per stream (head and tail). Zero means
	// DefaultMaxOutput.
	MaxOutput int
}

// DefaultMaxOutput is the number of bytes kept per stream when
// Request.MaxOutput is zero.
const DefaultMaxOutput = 1 << 20

func (r *Request) maxOutput() int {
	if r.MaxOutput > 0 {
		return r.MaxOutput
	}
	return DefaultMaxOutput
}

// A Result is what a finished (or timed out) run produced.
type Result struct {
	// ExitCode is the program's exit code. For Windows programs it is the
	// 32-bit DWORD reinterpreted as int32, as .NET and %ERRORLEVEL% show
	// it (0xC0000005 is -1073741819), when the backend can see 32 bits; see
	// Backend for which can. It is -1 when the process was killed by a
	// signal and the backend has no better value.
	ExitCode int

	// Stdout and Stderr are the captured streams.
	Stdout, Stderr Output

	// Duration is the wall-clock time from start to exit.
	Duration time.Duration

	// TimedOut reports that Timeout expired and the process tree was
	// killed; the output is what was printed until then.
	TimedOut bool

	// CodePage is the Windows code page used to decode output that is not
	// valid UTF-8 (0 when unknown).
	CodePage int

	// Backend names the backend that ran the request.
	Backend string
}

// Truncated reports whether either stream exceeded its cap.
func (r *Result) Truncated() bool { return r.Stdout.Truncated() || r.Stderr.Truncated() }

// StdoutText decodes Stdout: strict UTF-8 first, then r.CodePage.
func (r *Result) StdoutText() string { return r.Stdout.Text(r.CodePage) }

// StderrText decodes Stderr: strict UTF-8 first, then r.CodePage.
func (r *Result) StderrText() string { return r.Stderr.Text(r.CodePage) }
