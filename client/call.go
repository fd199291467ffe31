package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	timeout  time.Duration
	progress func(*mcp.ProgressParams)
}

// WithTimeout bounds this call instead of Options.Timeout: the whole
// call, all of its pages or rounds (see Options.Timeout). A deadline on
// the call's context still wins if it is earlier.
func WithTimeout(d time.Duration) CallOption { return func(o *callOptions) { o.timeout = d } }

// WithProgress asks the server for progress notifications on this call and
// passes each to f, on the connection's read loop: f must not block.
func WithProgress(f func(*mcp.ProgressParams)) CallOption {
	return func(o *callOptions) { o.progress = f }
}

// Future is a call in flight.
type Future[T any] struct {
	call    *transport.Call
	err     error // failed before sending
	cleanup func()
	decode  func(json.RawMessage) (T, error)

	// A call that takes several round trips runs on its own goroutine and
	// completes here instead.
	ch  chan struct{}
	res T
}

// goFuture runs f on its own goroutine.
func goFuture[T any](f func() (T, error)) *Future[T] {
	fu := &Future[T]{ch: make(chan struct{})}
	go func() {
		fu.res, fu.err = f()
		close(fu.ch)
	}()
	return fu
}

// Done is closed when the call has completed.
func (f *Future[T]) Done() <-chan struct{} {
	if f.ch != nil {
		return f.ch
	}
	if f.call == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return f.call.Done()
}

// Wait waits for the call to complete and returns its result.
func (f *Future[T]) Wait() (T, error) {
	if f.ch != nil {
		<-f.ch
		return f.res, f.err
	}
	var zero T
	if f.err != nil {
		return zero, f.err
	}
	raw, err := f.call.Raw()
	if f.cleanup != nil {
		f.cleanup()
	}
	if err != nil {
		return zero, err
	}
	return f.decode(raw)
}

// prepared is a request ready to send: its context (with the call's own
// timeout), encoded params, and the cleanup of its progress registration.
type prepared struct {
	ctx     context.Context
	cancel  context.CancelFunc
	params  json.RawMessage
	cleanup func()
}

func (pr *prepared) done() {
	pr.cancel()
	pr.cleanup()
}

// prepare applies the call's options and encodes params with the era's
// _meta. The prepared request is a value, which a blocking call keeps on
// its stack.
func (c *Client) prepare(ctx context.Context, method string, params any, opts []CallOption) (prepared, error) {
	var o callOptions
	if len(opts) > 0 {
		o = applyOptions(opts)
	}
	return c.prepareWith(ctx, method, params, o)
}

// bound applies the call's timeout to ctx: WithTimeout's, or the client's
// when ctx has no deadline. The timeout error names the setting that
// expired, so that the reader knows what to raise.
func (c *Client) bound(ctx context.Context, o callOptions) (context.Context, context.CancelFunc) {
	return bound(ctx, o, &c.opts, c.timeoutErr)
}

// bound is Client.bound for the client options opts; cause, if not nil,
// is the error of opts' timeout, made beforehand.
func bound(ctx context.Context, o callOptions, opts *Options, cause error) (context.Context, context.CancelFunc) {
	if o.timeout > 0 {
		return context.WithTimeoutCause(ctx, o.timeout, fmt.Errorf("%w after %v (client.WithTimeout)", ErrTimeout, o.timeout))
	}
	if d := opts.timeout(); d > 0 {
		if _, ok := ctx.Deadline(); !ok {
			if cause == nil {
				cause = fmt.Errorf("%w after %v (%s)", ErrTimeout, d, opts.timeoutName())
			}
			return context.WithTimeoutCause(ctx, d, cause)
		}
	}
	return ctx, func() {}
}

// operation starts a call that takes several requests (the pages of a
// list, the rounds of a multi round-trip call, the polls of a task): the
// call's timeout bounds them all, from now, instead of each. The options
// returned have no timeout left, so that the requests do not bound
// themselves again; ctx has a deadline, or no timeout applies.
func (c *Client) operation(ctx context.Context, opts []CallOption) (context.Context, context.CancelFunc, callOptions) {
	var o callOptions
	if len(opts) > 0 {
		o = applyOptions(opts)
	}
	ctx, cancel := c.bound(ctx, o)
	o.timeout = 0
	return ctx, cancel, o
}

// prepareWith is prepare with the options applied.
func (c *Client) prepareWith(ctx context.Context, method string, params any, o callOptions) (prepared, error) {
	pr := prepared{cleanup: func() {}}
	pr.ctx, pr.cancel = c.bound(ctx, o)
	var token string
	if o.progress != nil {
		token = "p" + strconv.FormatUint(c.tokens.Add(1), 10)
	}
	var err error
	if pr.params, err = c.withMeta(params, token); err != nil {
		pr.cancel()
		var ae *argumentsError
		if errors.As(err, &ae) {
			return prepared{}, ae.err
		}
		return prepared{}, fmt.Errorf("%s: %w", method, err)
	}
	if token != "" {
		c.mu.Lock()
		c.progress[token] = o.progress
		c.mu.Unlock()
		pr.cleanup = func() {
			c.mu.Lock()
			delete(c.progress, token)
			c.mu.Unlock()
		}
	}
	return pr, nil
}

// applyOptions applies opts. The options it fills escape to the heap,
// as options given to unknown functions do: a call without options does
// not make them.
func applyOptions(opts []CallOption) callOptions {
	var o callOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

// call makes a blocking request. It waits on the calling goroutine: no
// goroutine per call.
func (c *Client) call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	pr, err := c.prepare(ctx, method, params, opts)
	if err != nil {
		return err
	}
	defer pr.done()
	return c.conn.Call(pr.ctx, method, pr.params, result)
}

// callWith is call with the options applied: a request of an operation.
func (c *Client) callWith(ctx context.Context, method string, params, result any, o callOptions) error {
	pr, err := c.prepareWith(ctx, method, params, o)
	if err != nil {
		return err
	}
	defer pr.done()
	return c.conn.Call(pr.ctx, method, pr.params, result)
}

// Call makes a request this package has no typed method for. In 2026-07-28
// the protocol's _meta entries are added to params, which must encode as a
// JSON object (or be nil).
func (c *Client) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	return c.call(ctx, method, params, result, opts...)
}

// withMeta encodes params, adding the _meta entries the era needs: in
// 2026-07-28 the protocol version, client info and capabilities on every
// request; a progress token when asked for. The protocol's own params
// types get the entries set in place and are encoded once; any other value
// is encoded, opened as an object, and encoded again.
func (c *Client) withMeta(params any, token string) (json.RawMessage, error) {
	if tc, ok := params.(*toolCall); ok {
		tc.rawMeta = nil
		if c.stateless && token == "" && len(tc.Meta) == 0 && c.metaJSON != nil {
			// The common call: the client's own _meta, encoded once.
			tc.rawMeta = c.metaJSON
			return tc.encode()
		}
		if c.stateless || token != "" {
			if tc.Meta == nil {
				tc.Meta = mcp.Meta{}
			}
			c.addMeta(tc.Meta, token)
		}
		return tc.encode()
	}
	if !c.stateless && token == "" {
		if params == nil {
			return nil, nil
		}
		return json.Marshal(params)
	}
	if field := metaField(params); field != nil {
		if *field == nil {
			*field = mcp.Meta{}
		}
		c.addMeta(*field, token)
		return json.Marshal(params)
	}
	var fields map[string]json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, fmt.Errorf("params must be a JSON object: %w", err)
		}
	}
	if fields == nil {
		fields = map[string]json.RawMessage{}
	}
	meta := mcp.Meta{}
	if raw, ok := fields["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("_meta must be a JSON object: %w", err)
		}
	}
	c.addMeta(meta, token)
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	fields["_meta"] = b
	return json.Marshal(fields)
}

// addMeta sets the era's entries and the progress token in meta.
func (c *Client) addMeta(meta mcp.Meta, token string) {
	if c.stateless {
		meta[mcp.MetaProtocolVersion] = c.version
		meta[mcp.MetaClientInfo] = c.metaInfo
		meta[mcp.MetaClientCapabilities] = c.metaCaps
		if c.opts.LogLevel != "" {
			meta[mcp.MetaLogLevel] = c.opts.LogLevel
		}
	}
	if token != "" {
		meta[mcp.MetaProgressToken] = token
	}
}

// metaField returns the _meta member of the protocol's params types.
func metaField(params any) *mcp.Meta {
	switch p := params.(type) {
	case *mcp.RequestParams:
		return &p.Meta
	case *mcp.PaginatedParams:
		return &p.Meta
	case *mcp.CallToolParams:
		return &p.Meta
	case *toolCall:
		return &p.Meta
	case *mcp.ReadResourceParams:
		return &p.Meta
	case *mcp.GetPromptParams:
		return &p.Meta
	case *mcp.CompleteParams:
		return &p.Meta
	case *mcp.TaskParams:
		return &p.Meta
	case *mcp.UpdateTaskParams:
		return &p.Meta
	case *mcp.SubscriptionsListenParams:
		return &p.Meta
	}
	return nil
}

// Ping checks that the server answers. In 2026-07-28, which has no ping,
// it sends server/discover instead.
func (c *Client) Ping(ctx context.Context, opts ...CallOption) error {
	if c.stateless {
		return c.call(ctx, "server/discover", &mcp.RequestParams{}, nil, opts...)
	}
	return c.call(ctx, "ping", nil, nil, opts...)
}

// ListToolsPage returns one page of the server's tools.
func (c *Client) ListToolsPage(ctx context.Context, cursor string, opts ...CallOption) (*mcp.ListToolsResult, error) {
	var res mcp.ListToolsResult
	if err := c.call(ctx, "tools/list", &mcp.PaginatedParams{Cursor: cursor}, &res, opts...); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListTools returns all of the server's tools, following every page, up
// to Options.MaxListBytes in all (ErrListTooLarge beyond).
func (c *Client) ListTools(ctx context.Context, opts ...CallOption) ([]*mcp.Tool, error) {
	return listAll(ctx, c, "tools/list", func(r *mcp.ListToolsResult) ([]*mcp.Tool, string) {
		return r.Tools, r.NextCursor
	}, opts)
}

// CallTool calls a tool. args is encoded as the tool's arguments (nil means
// none). A tool that failed is not an error here: check the result's
// IsError. The error is for calls that could not be made or answered. In
// 2026-07-28, input the tool asks for (sampling, elicitation, roots) is
// answered by the Options handlers and the call retried automatically.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := c.callWithInput(ctx, "tools/call", newToolCall(name, args), &res, opts...); err != nil {
		return nil, err
	}
	return &res, nil
}

// CallToolAsync is CallTool returning at once with a Future.
func (c *Client) CallToolAsync(ctx context.Context, name string, args any, opts ...CallOption) *Future[*mcp.CallToolResult] {
	if c.stateless {
		return goFuture(func() (*mcp.CallToolResult, error) { return c.CallTool(ctx, name, args, opts...) })
	}
	f := &Future[*mcp.CallToolResult]{decode: func(raw json.RawMessage) (*mcp.CallToolResult, error) {
		var res mcp.CallToolResult
		// raw is the result as the transport checked it: valid JSON, which
		// json.Unmarshal would only check again before handing it over.
		if err := res.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("tools/call %s: decoding the result: %w", name, err)
		}
		return &res, nil
	}}
	pr, err := c.prepare(ctx, "tools/call", newToolCall(name, args), opts)
	if err != nil {
		f.err = err
		return f
	}
	f.call = c.conn.Go(pr.ctx, "tools/call", pr.params)
	f.cleanup = pr.done
	return f
}

// toolCall is the params of a tools/call whose arguments are not encoded
// yet: encode writes them straight into the params. Encoded on their own
// into CallToolParams.Arguments, as before, encoding/json scanned and
// copied them again when it met them as raw JSON in the params.
type toolCall struct {
	mcp.CallToolParams // Arguments unused
	args               any
	rawMeta            json.RawMessage // encoded _meta, sent when Meta is empty
}

func newToolCall(name string, args any) *toolCall {
	return &toolCall{CallToolParams: mcp.CallToolParams{Name: name}, args: args}
}

// toolCallWire is how a toolCall encodes: mcp.CallToolParams, member for
// member, with the arguments as a value to encode.
type toolCallWire struct {
	Name           string             `json:"name"`
	Arguments      any                `json:"arguments,omitempty"`
	InputResponses mcp.InputResponses `json:"inputResponses,omitzero"`
	RequestState   string             `json:"requestState,omitempty"`
	Task           *mcp.TaskMetadata  `json:"task,omitempty"`
	Meta           any                `json:"_meta,omitempty"` // mcp.Meta or json.RawMessage; nil for none
}

// encode encodes the params in one pass.
func (tc *toolCall) encode() (json.RawMessage, error) {
	if tc.InputResponses == nil && tc.RequestState == "" && tc.Task == nil && jsonscan.Plain(tc.Name) {
		switch {
		case tc.Meta == nil && tc.rawMeta == nil:
			return tc.encodePlain(nil)
		case len(tc.Meta) == 0 && tc.rawMeta != nil:
			// A stateless call's: its _meta goes in as spliceMeta
			// would put it.
			return tc.encodePlain(tc.rawMeta)
		}
	}
	var meta any // a nil mcp.Meta is no _meta, as omitzero had it
	spliced := len(tc.Meta) == 0 && tc.rawMeta != nil
	if !spliced && tc.Meta != nil {
		meta = tc.Meta
	}
	b, err := json.Marshal(&toolCallWire{tc.Name, tc.args, tc.InputResponses, tc.RequestState, tc.Task, meta})
	if err == nil {
		if spliced {
			b = spliceMeta(b, tc.rawMeta)
		}
		return b, nil
	}
	if tc.args != nil {
		if _, aerr := json.Marshal(tc.args); aerr != nil {
			return nil, &argumentsError{fmt.Errorf("tools/call %s: encoding arguments: %w", tc.Name, aerr)}
		}
	}
	return nil, err
}

// encodePlain encodes params that are a name and arguments alone (a
// legacy session's call without a progress token), as encoding/json
// encodes toolCallWire: encoding/json encodes only the arguments, the
// name goes in as it is (jsonscan.Plain), and the envelope costs no
// reflection on toolCallWire's six members on every call. A non-nil
// meta, the client's own encoding of its _meta (a stateless call's,
// statelessMeta), goes last as spliceMeta puts it: a stateless call
// paid for the reflection and for a second copy of the params.
func (tc *toolCall) encodePlain(meta json.RawMessage) (json.RawMessage, error) {
	var args []byte
	if tc.args != nil { // omitempty: a nil interface only
		var err error
		if args, err = json.Marshal(tc.args); err != nil {
			return nil, &argumentsError{fmt.Errorf("tools/call %s: encoding arguments: %w", tc.Name, err)}
		}
	}
	b := make([]byte, 0, len(`{"name":"","arguments":,"_meta":}`)+len(tc.Name)+len(args)+len(meta))
	b = append(append(append(b, `{"name":"`...), tc.Name...), '"')
	if tc.args != nil {
		b = append(append(b, `,"arguments":`...), args...)
	}
	if meta != nil {
		b = append(append(b, `,"_meta":`...), meta...)
	}
	return append(b, '}'), nil
}

// spliceMeta appends the member "_meta": meta to the encoded object obj,
// last, where encoding/json would have put it as toolCallWire's last
// field. meta is the client's own encoding (statelessMeta): encoding/json
// checked and copied it again, byte for byte, on every call.
func spliceMeta(obj, meta json.RawMessage) json.RawMessage {
	const member = `,"_meta":`
	out := make([]byte, 0, len(obj)+len(member)+len(meta))
	out = append(out, obj[:len(obj)-1]...) // obj has at least "name"
	out = append(append(append(out, member...), meta...), '}')
	return out
}

// argumentsError is a tool call whose arguments do not encode: prepare
// returns err as it is, which names the tool.
type argumentsError struct{ err error }

func (e *argumentsError) Error() string { return e.err.Error() }
func (e *argumentsError) Unwrap() error { return e.err }

// statelessMeta encodes the _meta that addMeta makes for a call without a
// progress token, exactly as encoding the map would (sorted keys).
func (c *Client) statelessMeta() json.RawMessage {
	meta := mcp.Meta{}
	c.addMeta(meta, "")
	b, err := json.Marshal(meta)
	if err != nil {
		return nil // the map path reports it
	}
	return b
}
