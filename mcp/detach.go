package mcp

import "context"

type detachKey struct{}

// DetachAfterAdmit marks ctx for ServeDirect: the request waits for an
// in-flight slot (ServerOptions.MaxInFlight) only while ctx lasts, and its
// handler then runs without ctx's cancellation (its values kept). A
// transport whose requests outlive their caller (a legacy HTTP session's
// POST whose client walks away) uses it so that a request still queued for
// a slot is dropped with its caller, as one queued on the stream would be,
// instead of holding the caller's goroutine and body until a slot frees.
func DetachAfterAdmit(ctx context.Context) context.Context {
	return context.WithValue(ctx, detachKey{}, true)
}

// admitted returns the handler's context once r was admitted under ctx.
func admitted(ctx context.Context) context.Context {
	if d, _ := ctx.Value(detachKey{}).(bool); d {
		return context.WithoutCancel(ctx)
	}
	return ctx
}
