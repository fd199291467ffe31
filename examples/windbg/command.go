package main

import (
	"fmt"
	"strings"
	"unicode"
)

// CommandError says why a command was refused before anything ran.
type CommandError struct {
	Reason string
}

func (e *CommandError) Error() string { return "invalid command: " + e.Reason }

// CheckCommand accepts exactly one non-empty line without control
// characters (tabs aside). An empty line is not harmless in cdb: it
// repeats the last command. A newline would smuggle a second command into
// the session, and other control characters (CTRL+B ends a cdb client)
// have no place in a command.
func CheckCommand(command string) error {
	if strings.TrimSpace(command) == "" {
		return &CommandError{Reason: "the command is empty; cdb would repeat the last command"}
	}
	for i, r := range command {
		switch {
		case r == '\n' || r == '\r':
			return &CommandError{Reason: fmt.Sprintf("the command must be one line (line break at byte %d); send one command per call, or separate commands with ';'", i)}
		case r != '\t' && unicode.IsControl(r):
			return &CommandError{Reason: fmt.Sprintf("control character %U at byte %d", r, i)}
		}
	}
	return nil
}
