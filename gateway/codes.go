package gateway

import (
	"fmt"

	"github.com/winbridge/winbridge/mcp"
)

// Code is the stable code of a refused or failed call. It is in the tool
// error's structuredContent ({"code": ..., "message": ...}) and in the
// audit line. docs/FACADE.md has the table.
type Code string

// The codes, in the order of the pipeline step that gives them.
const (
	CodeOK                  Code = "ok"                   // the call went through (the upstream's own isError aside)
	CodeUnknownTool         Code = "unknown_tool"         // no exposed tool has this name
	CodeDenied              Code = "denied"               // the policy does not allow the tool, or it is hidden
	CodeServerDisabled      Code = "server_disabled"      // the server's kill switch is on
	CodeArgumentsTooLarge   Code = "arguments_too_large"  // the encoded arguments pass the byte cap
	CodeInvalidArguments    Code = "invalid_arguments"    // the arguments fail the upstream's input schema
	CodePathOutsideRoots    Code = "path_outside_roots"   // a path argument resolves outside every root
	CodePathInvalid         Code = "path_invalid"         // a path argument cannot be read as a path
	CodeApprovalDeclined    Code = "approval_declined"    // the user declined
	CodeApprovalCancelled   Code = "approval_cancelled"   // the user dismissed the question
	CodeApprovalUnavailable Code = "approval_unavailable" // approval is needed and the client cannot ask (no elicitation)
	CodeApprovalBudget      Code = "approval_budget"      // the user turned down too many questions lately, or one is open already: not asked
	CodeApprovalReplayed    Code = "approval_replayed"    // the retried call brought an answer that a call used already
	CodeSessionBudget       Code = "session_budget"       // the session used up its calls
	CodeToolBusy            Code = "tool_busy"            // the tool's concurrent calls are all taken
	CodeTimeout             Code = "timeout"              // the upstream did not answer within the walltime (the call is cancelled)
	CodeUpstreamUnavailable Code = "upstream_unavailable" // the server is not running (failed, restarting, stopped)
	CodeUpstreamError       Code = "upstream_error"       // the server answered with a protocol error
	CodeUpstreamMalformed   Code = "upstream_malformed"   // the server's result is not a valid CallToolResult
	CodeResultTooLarge      Code = "result_too_large"     // the server's response passed the transport's message cap
	CodeOutputSchema        Code = "output_schema"        // structuredContent fails the tool's outputSchema
	CodeCancelled           Code = "cancelled"            // the client cancelled the call
)

// CodeOf returns the code of a result the facade answered a tools/call
// with, as a client decodes it: a refusal's code, which is in _meta
// whether or not the tool's outputSchema leaves room for it in
// structuredContent; CodeOK for a call that went through, the upstream's
// own isError results included; "" for nil.
func CodeOf(res *mcp.CallToolResult) Code {
	if res == nil {
		return ""
	}
	if m, ok := res.Meta[MetaKey].(map[string]any); ok && res.IsError {
		if code, ok := m["code"].(string); ok {
			return Code(code)
		}
	}
	return CodeOK
}

// refusal is a tool error with its code: in structuredContent and, for
// tools whose outputSchema forbids that shape, in _meta alone (see
// call.refuse).
func refusal(code Code, format string, args ...any) *mcp.CallToolResult {
	msg := fmt.Sprintf(format, args...)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: msg + " [" + string(code) + "]"}},
		StructuredContent: map[string]any{"code": string(code), "message": msg},
		ResultEnvelope:    mcp.ResultEnvelope{Meta: mcp.Meta{MetaKey: map[string]any{"code": string(code)}}},
	}
}
