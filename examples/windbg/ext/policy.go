package main

import "github.com/winbridge/winbridge/internal/dbgcmd"

// CommandError says why a command was refused before anything ran; its
// Class names the class of the refused command (see internal/dbgcmd).
type CommandError = dbgcmd.Error

// Policy says which commands CheckCommand lets through besides ordinary
// debugger commands.
type Policy struct {
	// AllowSessionEnd lets commands that end, detach, restart or unload
	// the session run. Run from inside the engine call the worker is
	// making, they would end the engine under it or make the extension
	// wait for itself (.unload waits for the worker, which is the caller).
	AllowSessionEnd bool
	// AllowHostCommands lets commands that reach past the session to the
	// host or the network run (.shell, .create, .load, .logopen, .dump,
	// .sympath, .server...).
	AllowHostCommands bool
	// ExtensionModules names extension modules that !module.command may
	// call besides the debugger's own (see dbgcmd.Policy).
	ExtensionModules []string
}

// CheckCommand accepts one non-empty ASCII line without control
// characters (tabs aside) whose commands p allows, as internal/dbgcmd
// decides. This extension's own !mcp (and !module.mcp) is refused under
// every policy: run by the worker, it would wait for the worker. Aliases,
// .foreach, scripts and the data model's command APIs are refused unless
// p allows both classes, since they could carry a refused command.
func CheckCommand(command string, p Policy) error {
	return p.shared().Check(command)
}

// shared is p as internal/dbgcmd takes it.
func (p Policy) shared() dbgcmd.Policy {
	return dbgcmd.Policy{
		AllowSessionEnd:   p.AllowSessionEnd,
		AllowHostCommands: p.AllowHostCommands,
		SessionEndOption:  "WINDBG_MCP_ALLOW_SESSION_END=1",
		HostOption:        "WINDBG_MCP_ALLOW_HOST_COMMANDS=1",
		Reserved:          "mcp",
		ExtensionModules:  p.ExtensionModules,
		ExtensionOption:   "WINDBG_MCP_EXTENSION_MODULES",
	}
}
