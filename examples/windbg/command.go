package main

import "github.com/winbridge/winbridge/internal/dbgcmd"

// CommandError says why a command was refused before anything ran; its
// Class names the class of the refused command (see internal/dbgcmd).
type CommandError = dbgcmd.Error

// The settings that allow each class, named in refusal messages.
const (
	sessionEndOption = "-allow-session-end (WINDBG_ALLOW_SESSION_END=1)"
	hostOption       = "-allow-host-commands (WINDBG_ALLOW_HOST_COMMANDS=1)"
	extensionOption  = "-extension-modules (WINDBG_EXTENSION_MODULES)"
)

// policy is what CheckCommand lets through under c.
func (c *Config) policy() dbgcmd.Policy {
	return dbgcmd.Policy{
		AllowSessionEnd:   c.AllowSessionEnd,
		AllowHostCommands: c.AllowHostCommands,
		SessionEndOption:  sessionEndOption,
		HostOption:        hostOption,
		ExtensionModules:  c.ExtensionModules,
		ExtensionOption:   extensionOption,
	}
}

// CheckCommand accepts one non-empty ASCII line without control
// characters (tabs aside) whose commands c's policy allows (see
// internal/dbgcmd). An empty line is not harmless in cdb: it repeats the
// last command. A newline would smuggle a second command into the
// session, and other control characters (CTRL+B ends a cdb client) have
// no place in a command. ASCII, because cdb reads its standard input in
// the ANSI code page: a double-byte code page would read UTF-8 bytes as
// lead bytes and swallow the ASCII character after them (a quote, a ';'),
// so cdb would not split the line the way it was checked. The server's own
// lines (the .echo markers, the quit command) are not model input and are
// not checked.
func (c *Config) CheckCommand(command string) error {
	return c.policy().Check(command)
}
