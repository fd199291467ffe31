package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/winbridge/winbridge/internal/termtext"

	mcpapi "github.com/winbridge/winbridge/mcp"
)

// evalSchema is the tool's input schema. command is not "required" and
// has no "minLength": mcp reports a schema violation as a tool error
// (isError), whereas a missing or empty command must be the JSON-RPC
// invalid-params error -32602, which the handler returns before anything
// runs (the same rule as examples/windbg).
const evalSchema = `{
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "One debugger command line as typed in WinDbg, e.g. k, lm, r or !analyze -v. Required and non-empty; one ASCII line (separate several commands with ';'). Some commands are refused; the tool's description lists them."
    }
  }
}`

type evalArgs struct {
	Command *string `json:"command"`
}

// addEvalTool registers the eval tool on srv, running commands on w.
func addEvalTool(srv *mcpapi.Server, cfg *Config, w *worker) {
	name := cfg.toolName()
	srv.AddTool(&mcpapi.Tool{
		Name:  name,
		Title: "Run a WinDbg command",
		Description: "Runs one debugger command in the WinDbg session this extension is loaded in and returns its text output. " +
			"Commands run one at a time; debugger state persists. A command past the timeout is interrupted and returns its partial output as an error. " +
			cfg.commandPolicy().Note(),
		InputSchema: json.RawMessage(evalSchema),
		Annotations: &mcpapi.ToolAnnotations{Title: "WinDbg command", OpenWorldHint: mcpapi.Ptr(false)},
	}, func(ctx context.Context, req *mcpapi.CallToolRequest) (*mcpapi.CallToolResult, error) {
		command, err := commandArg(name, req.Params.Arguments, cfg.policy())
		if err != nil {
			return nil, err
		}
		res, err := w.eval(ctx, command, cfg.Timeout, cfg.Grace)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return toolResult(name, cfg, res), nil
	})
}

// commandArg returns the command, or an invalid-params protocol error when
// it is missing, empty, not one line or refused; nothing has run yet.
func commandArg(tool string, raw json.RawMessage, p Policy) (string, error) {
	var args evalArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", &mcpapi.Error{Code: mcpapi.CodeInvalidParams, Message: fmt.Sprintf("%s: invalid arguments: %v", tool, err)}
		}
	}
	if args.Command == nil {
		return "", &mcpapi.Error{Code: mcpapi.CodeInvalidParams, Message: tool + `: missing argument "command" (a debugger command such as k)`}
	}
	if err := CheckCommand(*args.Command, p); err != nil {
		var ce *CommandError
		if errors.As(err, &ce) {
			return "", &mcpapi.Error{Code: mcpapi.CodeInvalidParams, Message: tool + `: argument "command": ` + ce.Reason}
		}
		return "", err
	}
	return *args.Command, nil
}

// toolResult renders the output with a note for what the model must
// know: dropped output, an engine failure, a timeout.
func toolResult(tool string, cfg *Config, res *evalResult) *mcpapi.CallToolResult {
	var b strings.Builder
	b.WriteString(termtext.Escape(strings.ReplaceAll(res.Output, "\r\n", "\n")))
	note := func(format string, args ...any) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "["+tool+": "+format+"]", args...)
	}
	if res.Output == "" && res.Err == nil && !res.TimedOut {
		b.WriteString("(no output)")
	}
	if res.Dropped > 0 {
		note("%d more bytes of output were dropped (limit WINDBG_MCP_MAX_OUTPUT=%d)", res.Dropped, cfg.MaxOutput)
	}
	switch {
	case res.Abandoned:
		note("the command did not finish within %v and did not stop within %v of an interrupt; the debugger is still busy with it, and later commands wait for it", cfg.Timeout, cfg.Grace)
	case res.TimedOut:
		note("the command did not finish within %v: it was interrupted, and the output above is partial", cfg.Timeout)
	case res.Err != nil:
		note("the debugger engine reported a failure: %v", res.Err)
	}
	return &mcpapi.CallToolResult{
		IsError: res.TimedOut || res.Err != nil,
		Content: []mcpapi.Content{&mcpapi.TextContent{Text: b.String()}},
	}
}
