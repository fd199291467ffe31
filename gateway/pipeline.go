package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/jsonwalk"
	"github.com/winbridge/winbridge/mcp"
)

// maxAuditName bounds the names an audit record takes from the request
// (the tool asked for, the client's name): the model chooses the first,
// unknown names included, and refused calls count against no budget, so
// a whole name would let it fill the audit file, rotating earlier records
// away, in a few calls. No exposed name is longer (maxNameLength ≤ 1024).
const maxAuditName = 1024

// call is one tools/call on its way through the pipeline.
type call struct {
	rec Record
	e   *exposed
	set *settings // the policy of the surface the call resolved against
}

// handle runs a tools/call through the pipeline, in the order of
// docs/FACADE.md; each step either passes or ends the call with a tool
// error carrying its code. Every call, refused or not, leaves one audit
// record.
func (v *view) handle(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	g := v.g
	start := time.Now()
	sess := g.session(req.Session)
	surf := v.surf.Load()
	ident, counted := g.identity(req, surf.set)
	c := &call{set: surf.set, rec: Record{Time: start, Session: sess.id, Client: cutUTF8(req.ClientInfo().Name, maxAuditName), Profile: surf.set.profNm,
		Exposed: cutUTF8(req.Params.Name, maxAuditName), ArgumentBytes: len(req.Params.Arguments)}}
	defer func() {
		if errors.Is(err, mcp.ErrInputRequired) {
			return // not finished: the client answers and the call runs again
		}
		if p := recover(); p != nil {
			g.log.Error("gateway: panic in the call pipeline", "tool", req.Params.Name, "panic", p)
			res, err = refusal(CodeUpstreamMalformed, "the gateway failed on this call"), nil
			c.rec.Code = CodeUpstreamMalformed
		}
		c.rec.Duration = time.Since(start)
		switch {
		case c.rec.Code == "":
			c.rec.Code = CodeOK
			c.rec.Outcome = "ok"
			if res != nil && res.IsError {
				c.rec.Outcome = "tool_error"
			}
		case c.rec.Outcome == "":
			c.rec.Outcome = "refused"
		}
		g.audit.write(&c.rec)
	}()
	if !counted {
		return c.refuse(CodeSessionBudget, "the gateway counts the calls of %d stateless callers already; try again later", maxIdentities)
	}
	return g.pipeline(ctx, req, surf, sess, ident, c)
}

func (c *call) refuse(code Code, format string, args ...any) (*mcp.CallToolResult, error) {
	c.rec.Code = code
	r := refusal(code, format, args...)
	if c.e != nil && c.e.def != nil && c.e.def.OutputSchema != nil {
		// Clients check structuredContent against the outputSchema even
		// in an error result (the TypeScript SDK does): the code stays
		// in _meta and the text.
		r.StructuredContent = nil
	}
	for _, b := range r.Content {
		if t, ok := b.(*mcp.TextContent); ok {
			c.rec.ResultBytes += len(t.Text)
		}
	}
	return r, nil
}

func (c *call) fail(code Code, format string, args ...any) (*mcp.CallToolResult, error) {
	c.rec.Outcome = "failed"
	return c.refuse(code, format, args...)
}

func (g *Gateway) pipeline(ctx context.Context, req *mcp.CallToolRequest, s *surface, sess, ident *sessionState, c *call) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	st := s.set
	// 1. Resolve the alias.
	e, ok := s.tools[name]
	if !ok {
		return c.refuse(CodeUnknownTool, "no tool is named %q; list the tools again", name)
	}
	c.e = e
	c.rec.Server, c.rec.Tool = e.Server, e.Tool

	// 2. Policy.
	if st, _, _, _, _ := e.up.snapshot(); st == StateDisabled {
		return c.refuse(CodeServerDisabled, "the server of tool %q is switched off", name)
	}
	if e.Denied != "" {
		return c.refuse(CodeDenied, "tool %q is %s", name, e.Denied)
	}
	if e.Withheld != "" {
		return c.refuse(CodeDenied, "tool %q is not offered: %s", name, e.Withheld)
	}

	// 3. Argument bytes.
	raw := req.Params.Arguments
	if len(raw) > e.maxArgs {
		return c.refuse(CodeArgumentsTooLarge, "the arguments are %d bytes; tool %q takes at most %d", len(raw), name, e.maxArgs)
	}
	// The facade judges "\ud800" as U+FFFD (encoding/json) and sends the
	// bytes, which a JavaScript upstream reads as a lone surrogate: not
	// what was checked.
	if jsonscan.LoneSurrogate(raw) {
		return c.refuse(CodeInvalidArguments, "the arguments escape half of a UTF-16 surrogate pair (\\ud800 without \\udc00-\\udfff after it), which decoders read differently; send the character, or the whole pair")
	}

	// 4. Strict validation against the upstream's own schema. A flat
	// schema on a call that needs no decoding otherwise is checked on the
	// bytes (the duplicate check still runs); the rest decode.
	if e.flat != nil && e.paths == nil && e.nulls == nil && len(raw) > 0 && raw[0] == '{' && e.flat.validRaw(raw) {
		if d := duplicateMember(raw); d != "" {
			return c.refuse(CodeInvalidArguments, "argument %s is given twice; send each member once", d[1:])
		}
		if got, d := e.inNames.alias(raw); got != "" {
			return c.refuse(CodeInvalidArguments, "argument %q differs from the declared property %q only in case; send it as declared", got, d)
		}
		return g.afterValidation(ctx, req, st, sess, ident, c, e, raw, nil)
	}
	// Numbers decode exactly (decodeArgs): integers as int64 or uint64,
	// the rest as float64 when that does not turn them into another
	// integer; nothing is converted, so "5" stays a string and an
	// integer schema refuses it.
	var args any
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		var big string
		var err error
		args, big, err = decodeArgs(raw, e.inNear)
		switch {
		case errors.Is(err, errInexact):
			return c.refuse(CodeInvalidArguments, "%v (the facade refuses numbers it cannot check exactly; send an integer of at most 64 bits, or a number a float64 holds)", err)
		case err != nil:
			return c.refuse(CodeInvalidArguments, "the arguments are not valid JSON: %v", err)
		case big != "" && !e.bigExact:
			return c.refuse(CodeInvalidArguments, "argument %s is an integer of magnitude 2^53 or more, which the facade cannot check exactly against the input schema of tool %q (it has multipleOf, or numbers a float64 does not hold)", big, name)
		}
	} else {
		args = map[string]any{}
	}
	if _, isObj := args.(map[string]any); !isObj {
		return c.refuse(CodeInvalidArguments, "the arguments must be a JSON object, not %s", jsonwalk.TypeName(args))
	}
	if d := duplicateMember(raw); d != "" {
		return c.refuse(CodeInvalidArguments, "argument %s is given twice; send each member once", d[1:])
	}
	if got, d := e.inNames.alias(raw); got != "" {
		// casealias.go
		return c.refuse(CodeInvalidArguments, "argument %q differs from the declared property %q only in case; send it as declared", got, d)
	}
	send := raw
	if e.nulls != nil {
		// openai-strict made optional properties required-and-nullable:
		// a null there means "absent" to the upstream. What is sent is
		// re-encoded from a decoding that keeps numbers as written.
		stripNulls(args, e.nulls)
		exact, ok := jsonscan.DecodeAny(raw)
		if !ok {
			return c.refuse(CodeInvalidArguments, "the arguments cannot be decoded exactly")
		}
		stripNulls(exact, e.nulls)
		// Without HTML escaping: json.Marshal writes < > & as six bytes
		// each, and what is sent must not outgrow what the byte cap
		// checked.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(exact); err != nil {
			return c.refuse(CodeInvalidArguments, "the arguments cannot be encoded: %v", err)
		}
		send = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	input, cost := e.input, e.inCost
	if e.inMul != nil {
		// Judged on the literals, not in float64 (multiple.go).
		fix, err := e.inMul.check(raw, "argument")
		if fix != nil {
			input, cost, err = e.inMul.exactSchema(fix, true)
		}
		switch {
		case errors.Is(err, errInexact):
			return c.refuse(CodeInvalidArguments, "%v (the facade refuses numbers it cannot check exactly)", err)
		case err != nil:
			return c.refuse(CodeInvalidArguments, "invalid arguments for tool %q: %v", name, err)
		}
	}
	if input == e.input && e.flat != nil && e.flat.valid(args.(map[string]any)) {
		// The common shape, valid: the full validator would agree.
	} else if cost.tooCostly(args) {
		return c.refuse(CodeInvalidArguments, "validating the arguments against the input schema of tool %q would cost more than the facade allows (%d units: the schema reaches itself from more than one place at a level and the arguments nest deep, or they are large where the schema is costly to apply, as a long enum or an anyOf); send shallower or smaller arguments", name, maxValidationCost)
	} else if err := input.Validate(args); err != nil {
		return c.refuse(CodeInvalidArguments, "invalid arguments for tool %q: %v (values are not converted: a number must be sent as a JSON number, not a string)", name, err)
	}

	return g.afterValidation(ctx, req, st, sess, ident, c, e, send, args)
}

// afterValidation runs the pipeline from step 5 on; args is nil when the
// tool has no path arguments and the arguments were checked undecoded.
func (g *Gateway) afterValidation(ctx context.Context, req *mcp.CallToolRequest, st *settings, sess, ident *sessionState, c *call, e *exposed, send json.RawMessage, args any) (*mcp.CallToolResult, error) {
	name := e.Name
	// 5. Scope binding.
	for _, p := range e.paths {
		err := p.values(args, func(where string, v any) error {
			str, ok := v.(string)
			if !ok {
				return fmt.Errorf("%w: argument %s is %s, not a path string", errBadPath, where[1:], jsonwalk.TypeName(v))
			}
			if err := st.scope.check(str); err != nil {
				return fmt.Errorf("argument %s: %w", where[1:], err)
			}
			return nil
		})
		switch {
		case errors.Is(err, errOutside):
			return c.refuse(CodePathOutsideRoots, "%v; allowed roots: %s", err, strings.Join(st.pol.Roots, ", "))
		case err != nil:
			return c.refuse(CodePathInvalid, "%v", err)
		}
	}

	// 6. Approval.
	c.rec.Approval = "not_required"
	if e.Approval {
		asker := sess // whose questions the approval budget counts
		if ident != nil {
			asker = ident
		}
		if res, err, done := g.approve(ctx, req, c, send, asker); done {
			return res, err
		}
	}

	// 7. Budgets.
	if err := sess.take(e.Budgets.CallsPerSession); err != nil {
		return c.refuse(CodeSessionBudget, "%v", err)
	}
	if ident != nil {
		if err := ident.take(e.Budgets.CallsPerSession); err != nil {
			sess.calls.Add(-1)
			return c.refuse(CodeSessionBudget, "%v", err)
		}
	}
	running := g.concurrency(e.key())
	if n := running.Add(1); int(n) > e.Budgets.ConcurrentPerTool {
		running.Add(-1)
		sess.calls.Add(-1) // a refused call does not count
		if ident != nil {
			ident.calls.Add(-1)
		}
		return c.refuse(CodeToolBusy, "tool %q already runs %d calls; try again when one ends", name, e.Budgets.ConcurrentPerTool)
	}
	defer running.Add(-1)
	cctx, cancel := context.WithTimeout(ctx, e.Budgets.Timeout)
	defer cancel()

	// 8. The upstream call.
	res, code, err := g.callUpstream(cctx, req, e, send, st)
	err = e.up.redact(err) // an HTTP upstream's errors name its URL (redact.go)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return c.fail(CodeCancelled, "the call was cancelled")
		case cctx.Err() != nil:
			return c.fail(CodeTimeout, "tool %q did not answer within %v; the call was cancelled", name, e.Budgets.Timeout)
		}
		return c.fail(code, "tool %q: %v", name, err)
	}

	// _meta[MetaKey] is the facade's own: an upstream that writes it
	// must not pass for a refusal (CodeOf) or a cut; nor may it write the
	// protocol's keys (reserved.go). res may be an in-process tool's own
	// value: the change is made on a copy.
	if m, removed := upstreamMeta(res.Meta); removed {
		cp := *res
		cp.Meta = m
		res = &cp
	}

	// 9. Output checks.
	if err := checkRawBlocks(res.Content); err != nil {
		return c.fail(CodeUpstreamMalformed, "tool %q returned a result the facade cannot forward as it read it: %v", name, err)
	}
	// Nor may it write them on its blocks (reserved.go).
	if blocks, removed := upstreamBlocks(res.Content); removed {
		cp := *res
		cp.Content = blocks
		res = &cp
	}
	if res.StructuredContent != nil {
		// What is forwarded is what was judged (structured.go).
		var code Code
		if res, code, err = checkStructured(res, e, st.limits.MaxResultBytes); err != nil {
			return c.fail(code, "tool %q %v", name, err)
		}
	} else if e.output != nil && !res.IsError {
		return c.fail(CodeOutputSchema, "tool %q declares an output schema but returned no structured content", name)
	}
	res, kept, cut := capResult(res, st.limits.MaxBlockBytes, st.limits.MaxResultBytes)
	c.rec.ResultBytes, c.rec.Cut = kept, cut
	return res, nil
}

// callUpstream makes the call and decodes the result itself, so that a
// malformed result is told apart from a failed call.
func (g *Gateway) callUpstream(ctx context.Context, req *mcp.CallToolRequest, e *exposed, args json.RawMessage, st *settings) (*mcp.CallToolResult, Code, error) {
	if e.up.inproc != nil {
		return g.callInProcess(ctx, req, e, args)
	}
	e.up.acquire()
	defer e.up.release(true)
	cl, err := e.up.client(ctx)
	if err != nil {
		return nil, CodeUpstreamUnavailable, err
	}
	ctx, end := e.up.begin(ctx, req, st) // what it asks of the client goes to req's
	defer end()
	params := &mcp.CallToolParams{Name: e.Tool, Arguments: args}
	var raw json.RawMessage
	if err := cl.Call(ctx, "tools/call", params, &raw); err != nil {
		var rpc *mcp.Error
		switch {
		case errors.As(err, &rpc) && strings.HasPrefix(rpc.Message, "response too large"):
			return nil, CodeResultTooLarge, errors.New("the server's response passed the upstream message cap (limits.maxUpstreamMessageBytes)")
		case errors.As(err, &rpc):
			return nil, CodeUpstreamError, fmt.Errorf("the server answered with error %d: %s", rpc.Code, cutUTF8(rpc.Message, 512))
		case errors.Is(err, client.ErrClosed):
			return nil, CodeUpstreamUnavailable, fmt.Errorf("the server went away during the call")
		}
		return nil, CodeUpstreamUnavailable, err
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, CodeUpstreamMalformed, fmt.Errorf("the server's result is not a valid tool result: %v", cutUTF8(err.Error(), 256))
	}
	if res.Content == nil && res.StructuredContent == nil {
		return nil, CodeUpstreamMalformed, errors.New("the server's result has no content")
	}
	if err := keepSamplingBlocks(&res, raw); err != nil {
		return nil, CodeUpstreamMalformed, err
	}
	if res.StructuredContent != nil {
		// Decoded with numbers as float64: the facade judges and
		// forwards the bytes the server sent instead (structured.go).
		sc, err := structuredMember(raw)
		if err != nil {
			return nil, CodeUpstreamMalformed, err
		}
		res.StructuredContent = json.RawMessage(sc)
	}
	for _, b := range res.Content {
		if b == nil {
			return nil, CodeUpstreamMalformed, errors.New("the server's result has a null content block")
		}
	}
	res.ResultType = ""
	return &res, CodeOK, nil
}

// callInProcess calls an in-process upstream's tool directly, with no
// protocol hop (mcp.Server.CallToolFor): its progress, logs and questions
// reach the downstream client. It runs on the caller's goroutine: the
// walltime cancels its context, and a tool of this process is trusted to
// honour that (a goroutine per call to abandon one that does not cost a
// third of the facade's latency).
func (g *Gateway) callInProcess(ctx context.Context, req *mcp.CallToolRequest, e *exposed, args json.RawMessage) (*mcp.CallToolResult, Code, error) {
	if st, _, _, _, _ := e.up.snapshot(); st != StateReady {
		return nil, CodeUpstreamUnavailable, fmt.Errorf("server %q is %s", e.Server, st)
	}
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	var o outcome
	o.res, o.err = e.up.inproc.CallToolFor(ctx, req, e.Tool, args)
	if ctx.Err() != nil {
		return nil, CodeTimeout, context.Cause(ctx)
	}
	switch {
	case errors.Is(o.err, mcp.ErrInputRequired):
		return nil, CodeUpstreamError, errors.New("the tool asked the client for input; answer and call again")
	case o.err != nil:
		var rpc *mcp.Error
		if errors.As(o.err, &rpc) {
			return nil, CodeUpstreamError, fmt.Errorf("the server answered with error %d: %s", rpc.Code, cutUTF8(rpc.Message, 512))
		}
		return nil, CodeUpstreamError, o.err
	case o.res == nil:
		return nil, CodeUpstreamMalformed, errors.New("the server returned no result")
	}
	for _, b := range o.res.Content {
		if b == nil {
			return nil, CodeUpstreamMalformed, errors.New("the server's result has a null content block")
		}
	}
	// The result may be the tool's own value: it is not changed here, and
	// capResult changes only a copy.
	return o.res, CodeOK, nil
}
