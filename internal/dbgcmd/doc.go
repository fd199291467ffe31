// Package dbgcmd decides whether a debugger command line that a model
// sent may run in a WinDbg (dbgeng) session. It is the one policy of the
// cdb server (examples/windbg) and the WinDbg extension
// (examples/windbg/ext).
//
// A command line is refused when it is not one non-empty ASCII line
// without control characters of at most MaxLine (4096) bytes, or when it holds a command of a class the
// Policy does not allow:
//
//   - SessionEnd: commands that end, detach from, restart or unload the
//     session (q, qq, qd, .kill, .detach, .unload, ...).
//   - Host: commands that reach past the debugging session to the host or
//     the network: run programs (.shell, .create, .dbgdbg), load code
//     (.load, .loadby, .cordll, extension DLLs by path), write or read
//     host files (.logopen, .writemem, .dump, .readmem, lsf, .settings,
//     the source listings ls and lsa and the source options l+s, l+t,
//     which with a srv* source path run the fetch command a symbol file
//     names (SrcSrv),
//     and options of allowed extension commands such as !analyze -xmf
//     and -load, !chkimg -mmw), change the paths the engine searches
//     (.sympath, .srcpath, .extpath, .symfix, ...), open the session to
//     the network (.server, .remote, .netuse) and any network path
//     (\\host\share, //host, \??\), and !module.command for a module
//     that is neither the debugger's own nor in Policy.ExtensionModules
//     (the debugger loads it from its extension path, which holds every
//     PATH directory), the module read both up to the bytes that end a
//     name here and up to a blank or ';' (!ext,evil.x), as where dbgeng
//     ends it is not documented. An extension command named after
//     a dispatcher (SOS's !ext logopen f) is checked as that command.
//   - Indirect: constructs that build a command at run time or hide it,
//     so that no check of the line can see what runs: alias definition
//     and expansion of every kind (as, aS, r $.u0, $u0, ${...}), .foreach,
//     the !for_each_* extension commands, !list -a, .ocommand, DML links
//     (.printf /D "<link cmd=...>", whose command runs when clicked, and
//     .printf /D with any conversion but %%, which can build the link:
//     "%clink" with 0x3c),
//     script files ($$<, $$><, $$>a<), JavaScript (.scriptload,
//     .scriptrun), and the debugger data model's command and file APIs
//     (Debugger.Utility, @$scripts, @$debuggerRootNamespace, and the
//     root Debugger itself wherever it stands, Debugger.Sessions aside,
//     since held in a variable it reaches any member by a computed
//     string). They are refused
//     whenever any other class is refused, since they could carry a
//     refused command.
//
// The check is lexical and deliberately coarse: dbgeng's command grammar
// differs from command to command (which one ends at ';', which takes the
// rest of the line, where a thread prefix ends), so instead of parsing it
// the check looks for the refused names wherever they could start a
// command, in any case, after any separator, inside quotes, braces and
// breakpoint command strings, and after thread and process prefixes
// (~*e, ~~[0x1d8]e, ~0n12e, ~., |0s). Where the line holds a backslash,
// the line its C escapes decode to is checked too, since breakpoint
// command strings take C escapes ("\x2eshell" runs .shell). A word that
// merely looks like a refused command (a symbol named QueueItem, a field
// named Create) is refused too: a false refusal costs the model a retry,
// a false acceptance costs the host.
//
// What the check cannot see: aliases the user defined before (an alias
// name is replaced wherever it stands as a word), the commands of
// third-party extensions beyond a short list, DML links the target
// prints (OutputDebugString with <?dml?>), and what the target does: on
// a live target, .call, or editing memory and registers and letting it
// run, makes it call any function its process may.
// It is a guardrail for a cooperative model, not a sandbox.
package dbgcmd
