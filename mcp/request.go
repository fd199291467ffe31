package mcp

import (
	"context"

	"github.com/winbridge/winbridge/transport"
)

// ServerRequest is a request a server handler receives: its params and
// what is known of the client that sent it.
//
// The protocol's own _meta entries (MetaProtocolVersion, MetaClientInfo,
// MetaClientCapabilities, MetaLogLevel), which a 2026-07-28 client sends
// with every request, are read by the server and are not in the params'
// Meta: ProtocolVersion, ClientInfo and ClientCapabilities return them
// typed. Every other entry, progressToken included, is there as sent, in
// a Meta of the request's own.
type ServerRequest[P any] struct {
	Session *ServerSession
	ID      transport.ID
	Params  P
	info    *callInfo
	vars    map[string]string // resource template variables
	input   *input            // multi round-trip state (2026-07-28)

	// Tasks: the task this request runs in, whether the client supports
	// tasks, and the task RunAsTask started.
	task         *taskRun
	tasksAllowed bool
	created      *CreateTaskResult
}

// CallToolRequest is the request a tool handler receives.
type CallToolRequest = ServerRequest[*CallToolParams]

// ProtocolVersion returns the revision the request was made in.
func (r *ServerRequest[P]) ProtocolVersion() string { return r.info.version }

// ClientInfo returns the client's self-description.
// It is a copy: the decoding is shared by every request that sent the
// same, so nothing a handler changes in it reaches another request.
func (r *ServerRequest[P]) ClientInfo() Implementation { return r.info.client.info.clone() }

// ClientCapabilities returns the client's capabilities: per request in
// 2026-07-28, per session before.
// It is a deep copy, as for ClientInfo.
func (r *ServerRequest[P]) ClientCapabilities() ClientCapabilities {
	return r.info.client.caps.clone()
}

// Progress reports progress on the request to the client, if the client
// asked for progress (with a progress token); otherwise it does nothing.
// total is omitted when zero.
func (r *ServerRequest[P]) Progress(ctx context.Context, progress, total float64, message string) error {
	if r.info.progress == nil {
		return nil
	}
	p := &ProgressParams{ProgressToken: r.info.progress, Progress: progress, Message: message}
	if before(r.info.version, Version20250326) {
		p.Message = "" // progress messages arrived in 2025-03-26
	}
	if total != 0 {
		p.Total = &total
	}
	return r.Session.connection().Notify(ctx, "notifications/progress", p)
}

// Log sends a log message to the client if the client wants messages of
// that level: as set by logging/setLevel in the legacy era, or by the
// request's own _meta in 2026-07-28. Otherwise it does nothing.
func (r *ServerRequest[P]) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	min := r.info.logLevel
	if !r.info.stateless {
		r.Session.mu.Lock()
		min = r.Session.logLevel
		r.Session.mu.Unlock()
	}
	if min == "" || !level.atLeast(min) {
		return nil
	}
	return r.Session.connection().Notify(r.about(ctx), "notifications/message", &LoggingMessageParams{Level: level, Logger: logger, Data: data})
}

// about marks ctx as about r (transport.Conn.WithRequest) for what r sends the
// client: a log message or a question is about the request it is sent
// through, whatever context the handler passes (one of its own, that the
// client's cancellation does not end, or another request's), and a
// transport that carries it with its request (Streamable HTTP) must not
// put it with another.
func (r *ServerRequest[P]) about(ctx context.Context) context.Context {
	if r.info.stateless || r.ID.IsZero() {
		return ctx // a stateless request's session has no other request
	}
	return r.Session.connection().WithRequest(ctx, r.ID)
}
