package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/winbridge/winbridge/internal/termtext"

	"github.com/winbridge/winbridge/mcp"
)

// ToolName is the name of the tool; with -dotted-names it is windbg.eval,
// the spelling of earlier releases. The default passes
// ^[a-zA-Z0-9_-]{1,64}$, which Claude Desktop, OpenAI and Codex enforce.
const ToolName = "windbg_eval"

// evalSchema is the tool's input schema. command is declared a string but
// is not "required" and has no "minLength": mcp validates arguments against
// the schema before the handler runs and reports a violation as a tool
// error (isError), whereas a missing or empty command must be a JSON-RPC
// invalid-params error (-32602). The handler checks it first, before
// anything is sent to cdb (see CheckCommand); the description states the
// rule for the model.
const evalSchema = `{
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "One debugger command line, as typed at the cdb prompt, e.g. k, lm, r or !analyze -v. Required, non-empty, one ASCII line (separate several commands with ';'). Some commands are refused; the tool's description lists them."
    }
  }
}`

// evalArgs are the tool's arguments; a nil Command is a missing one.
type evalArgs struct {
	Command *string `json:"command"`
}

// addEvalTool registers windbg_eval (or windbg.eval) on srv, running
// commands in sess.
func addEvalTool(srv *mcp.Server, sess *Session, dotted bool) {
	name := toolName(dotted)
	srv.AddTool(&mcp.Tool{
		Name:  name,
		Title: "Run a WinDbg (cdb) command",
		Description: "Runs one debugger command in the cdb session this server keeps open on " + sess.cfg.Target() +
			" and returns its text output. Commands run one at a time; debugger state persists between calls. " +
			"A command that runs past the timeout returns its partial output as an error. " + sess.cfg.policy().Note(),
		InputSchema: json.RawMessage(evalSchema),
		Annotations: &mcp.ToolAnnotations{Title: "WinDbg command", OpenWorldHint: mcp.Ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		command, err := commandArg(name, req.Params.Arguments, &sess.cfg)
		if err != nil {
			return nil, err
		}
		res, err := sess.Eval(ctx, command)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return toolResult(name, sess.cfg, res), nil
	})
}

// toolName is ToolName, with a dot for the underscore when dotted.
func toolName(dotted bool) string {
	if dotted {
		return strings.Replace(ToolName, "_", ".", 1)
	}
	return ToolName
}

// commandArg returns the command, or an invalid-params protocol error when
// it is missing, empty, not one ASCII line or refused by the policy;
// nothing has run yet.
func commandArg(tool string, raw json.RawMessage, cfg *Config) (string, error) {
	var args evalArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("%s: invalid arguments: %v", tool, err)}
		}
	}
	if args.Command == nil {
		return "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: tool + `: missing argument "command" (a debugger command such as k)`}
	}
	if err := cfg.CheckCommand(*args.Command); err != nil {
		var ce *CommandError
		if errors.As(err, &ce) {
			return "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: tool + `: argument "command": ` + ce.Reason}
		}
		return "", err
	}
	return *args.Command, nil
}

// toolResult renders a Result as text: the output, then a note for
// anything the model must know (a timeout, the end of the session, cut
// output). A timeout or an ended session is a tool error.
func toolResult(tool string, cfg Config, res *Result) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString(termtext.Escape(res.Output))
	note := func(format string, args ...any) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "["+tool+": "+format+"]", args...)
	}
	if res.Output == "" && !res.TimedOut && res.Ended == "" {
		b.WriteString("(no output)")
	}
	if res.Dropped > 0 {
		note("%d more bytes of output were dropped (limit -max-output %d)", res.Dropped, cfg.MaxOutput)
	}
	switch {
	case res.TimedOut && res.Kept:
		note("the command did not finish within %v: the output above is partial. It was interrupted and the session goes on.", cfg.Timeout)
	case res.TimedOut:
		note("the command did not finish within %v: the output above is partial. %s; the next command opens a new session (breakpoints and other debugger state are lost).", cfg.Timeout, res.Ended)
	case res.Ended != "":
		note("%s; the next command opens a new session.", res.Ended)
	}
	return &mcp.CallToolResult{
		IsError: res.TimedOut || res.Ended != "",
		Content: []mcp.Content{&mcp.TextContent{Text: b.String()}},
	}
}
