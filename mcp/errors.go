package mcp

import (
	"github.com/winbridge/winbridge/transport"
)

// Error is a JSON-RPC error object. A handler returns one to answer with a
// protocol error; a client receives one when the peer did. It is the same
// type as transport.Error.
type Error = transport.Error

// Error codes: JSON-RPC's, and those MCP defines.
const (
	CodeParseError     = transport.CodeParseError
	CodeInvalidRequest = transport.CodeInvalidRequest
	CodeMethodNotFound = transport.CodeMethodNotFound
	CodeInvalidParams  = transport.CodeInvalidParams
	CodeInternalError  = transport.CodeInternalError

	// CodeResourceNotFound answers resources/read for an unknown resource.
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired says a request needs a URL elicitation first (2025-11-25).
	CodeURLElicitationRequired = -32042
	// CodeMissingClientCapability says a request needs a capability the
	// client did not declare (2026-07-28).
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion says the server does not speak the
	// request's protocol version (2026-07-28).
	CodeUnsupportedProtocolVersion = -32022
	// CodeHeaderMismatch says HTTP headers disagree with the body (2026-07-28).
	CodeHeaderMismatch = -32020
)

// UnsupportedVersionData is the data of an unsupported-protocol-version error.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

func invalidParams(format string, err error) *Error {
	msg := format
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Code: CodeInvalidParams, Message: msg}
}
