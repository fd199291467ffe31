// Package winexec runs Windows programs from Linux, WSL or Windows itself and
// reports their stdout, stderr and exit code faithfully.
//
// Every existing bridge gets at least one of these wrong, so this package
// treats each as a requirement:
//
//   - argv fidelity: Windows has no argv, only one command line. winexec builds
//     it with the MSVCRT/CommandLineToArgvW rules ([BuildCommandLine]) instead
//     of letting PowerShell 5.1 re-quote (and drop empty arguments). cmd.exe
//     follows other rules and has its own builder ([CmdCommandLine]); the
//     Executor applies the cmd.exe rule: one argument after /C is cmd.exe
//     syntax, several are literal tokens (see [ErrCmdArgs]).
//   - tree-wide timeouts: a timeout kills the whole process tree, not only the
//     process the bridge started, and returns the output printed so far.
//   - encodings: output bytes are kept raw; decoding tries strict UTF-8 and
//     then the Windows code page (CP936, CP437, ...), see [Decode].
//   - exit codes: the PowerShell backends report the full 32-bit Windows exit
//     code; the direct backend sees only what WSL interop passes (8 bits).
//   - data never becomes code: the only PowerShell ever run is the constant
//     [Bootstrap]; requests travel as JSON on its stdin.
//
// A [Backend] runs one [Request]. The backends are [Local] (native exec with
// process-group or Job Object kill), [Direct] (an .exe through WSL interop or
// a launcher such as wine), [PowerShell] (one powershell.exe per call) and
// [PSHost] (a pool of persistent powershell.exe processes). [Executor] puts a
// [Policy] (which executables and environment variables are allowed), the
// defaults of a [Config] and path translation in front of a backend; it is
// what MCP tools should call.
//
// docs/WINDOWS.md in the repository describes the backends, the settings and
// a checklist for a real Windows + WSL machine.
package winexec
