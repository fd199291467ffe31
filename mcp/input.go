package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/winbridge/winbridge/internal/decodecost"
	"github.com/winbridge/winbridge/transport"
)

// ErrInputRequired is returned by CreateMessage, Elicit and ListRoots in the
// 2026-07-28 era when the client has not supplied the answer yet. The
// server then answers the request with an InputRequiredResult; the client
// retries with the answers, and the handler runs again from the start, this
// time getting them. A handler passes the error up (or simply returns)
// without treating it as a failure; whatever it returns after asking is
// ignored.
var ErrInputRequired = errors.New("mcp: input required from the client")

// ErrClientResultTooLarge is returned by CreateMessage, Elicit, ListRoots
// and their Raw forms when the client's result would take more than
// ServerOptions.MaxParamsMemory decoded (see decodeClientResult).
var ErrClientResultTooLarge = errors.New("mcp: the client's result is too large to decode")

// input is the multi round-trip state of one request (2026-07-28).
type input struct {
	answers InputResponses // verified answers from earlier rounds and this one
	fresh   []string       // keys this retry answers: asked in the round before
	pending InputRequests  // what this run asked for and did not have
	asks    int            // asks so far in this run: keys are deterministic
	binding binding        // what the state is bound to
}

// CreateMessage asks the client to sample its model: a request to the
// client in the legacy era, an input request in 2026-07-28. It fails with a
// -32021 error if the client did not declare the sampling capability.
func (r *ServerRequest[P]) CreateMessage(ctx context.Context, p *CreateMessageParams, opts ...AskOption) (*CreateMessageResult, error) {
	if r.info.client.caps.Sampling == nil {
		return nil, missingCapability("sampling", r.info.version)
	}
	var res CreateMessageResult
	return &res, r.ask(ctx, "sampling", CreateMessageInput(p), &res, opts)
}

// AskOption adjusts one request for input.
type AskOption func(*askOptions)

type askOptions struct{ key string }

// InputKey names the input request in the 2026-07-28 era (the key of
// inputRequests and inputResponses) instead of a generated "<kind>-<n>".
// A handler that asks several times must give each ask its own key.
func InputKey(key string) AskOption { return func(o *askOptions) { o.key = key } }

// Elicit asks the client's user for input, in form or URL mode.
func (r *ServerRequest[P]) Elicit(ctx context.Context, p *ElicitParams, opts ...AskOption) (*ElicitResult, error) {
	if err := r.canElicit(p); err != nil {
		return nil, err
	}
	var res ElicitResult
	return &res, r.ask(ctx, "elicitation", ElicitInput(p), &res, opts)
}

// canElicit reports the capability the client lacks for p, if any: form
// mode needs elicitation.form (or an elicitation object without modes, as
// clients before modes sent), URL mode elicitation.url.
func (r *ServerRequest[P]) canElicit(p *ElicitParams) error {
	caps := r.info.client.caps.Elicitation
	url := p.Mode == ElicitModeURL
	if caps == nil || (url && caps.URL == nil) || (!url && caps.Form == nil && caps.URL != nil) {
		what := "elicitation"
		if url {
			what = "elicitation.url"
		}
		return missingCapability(what, r.info.version)
	}
	return nil
}

// CreateMessageRaw is CreateMessage for a proxy that passes on a
// server's request: params (which must decode as CreateMessageParams) are
// sent as they are, and the client's result comes back as the client sent
// it (once it decodes as a CreateMessageResult). Numbers that the typed
// form reads as float64 (a tool_use block's input, metadata) thus pass
// exactly. It asks in the legacy era only; in 2026-07-28 it fails.
func (r *ServerRequest[P]) CreateMessageRaw(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	if r.info.client.caps.Sampling == nil {
		return nil, missingCapability("sampling", r.info.version)
	}
	var p CreateMessageParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, invalidParams("sampling/createMessage", err)
	}
	return r.askRaw(ctx, "sampling/createMessage", params, new(CreateMessageResult))
}

// ElicitRaw is CreateMessageRaw for elicitation/create: the params (an
// ElicitParams) and the client's ElicitResult pass as encoded, so that a
// form's defaults and bounds and the values the user gave keep their
// numbers exact.
func (r *ServerRequest[P]) ElicitRaw(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p ElicitParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, invalidParams("elicitation/create", err)
	}
	if err := r.canElicit(&p); err != nil {
		return nil, err
	}
	return r.askRaw(ctx, "elicitation/create", params, new(ElicitResult))
}

// askRaw sends a legacy-era request with params as they are, and returns
// the result as received once it decodes into check.
func (r *ServerRequest[P]) askRaw(ctx context.Context, method string, params json.RawMessage, check any) (json.RawMessage, error) {
	if r.info.stateless {
		return nil, fmt.Errorf("mcp: %s cannot be passed on as encoded in %s", method, r.info.version)
	}
	defer r.Session.waitOnClient()()
	var res json.RawMessage
	if err := r.Session.connection().Call(r.about(ctx), method, params, &res); err != nil {
		return nil, err
	}
	if err := r.Session.decodeClientResult(method, res, check); err != nil {
		return nil, err
	}
	return res, nil
}

// decodeClientResult decodes the client's result of a request of the
// server into out, once its shape says it takes no more than
// ServerOptions.MaxParamsMemory decoded: the message bound alone lets a
// result of nested empty objects take thirty to a hundred times its bytes
// (a sampling result's content, a list of roots), as params would. What
// the client sends back is bounded as what it sends first.
func (ss *ServerSession) decodeClientResult(method string, raw json.RawMessage, out any) error {
	limit := ss.srv.opts.MaxParamsMemory
	if est, over := decodecost.Over(raw, limit); over {
		ss.srv.log.Warn("mcp: client result too large to decode", "method", methodText(method), "bytes", len(raw), "estimate", est)
		return fmt.Errorf("%w: %s: %d bytes that would take about %d bytes decoded, more than %d (ServerOptions.MaxParamsMemory)",
			ErrClientResultTooLarge, method, len(raw), est, limit)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("mcp: the client's %s result: %w", method, err)
	}
	return nil
}

// Answers reports whether this request is a 2026-07-28 retry that answers
// the input request asked under key (InputKey) in the round before: the
// answer is one the server asked for, carried with the sealed state that
// says so. Answers planted by a client for questions not asked, and answers
// of earlier rounds, do not count. It is false in the legacy era, where the
// client is asked directly. A handler that counts the questions it asks
// (approvals, say) counts the answer here, once.
func (r *ServerRequest[P]) Answers(key string) bool {
	return r.input != nil && slices.Contains(r.input.fresh, key)
}

// ListRoots asks the client for its roots.
func (r *ServerRequest[P]) ListRoots(ctx context.Context, opts ...AskOption) (*ListRootsResult, error) {
	if r.info.client.caps.Roots == nil {
		return nil, missingCapability("roots", r.info.version)
	}
	var res ListRootsResult
	return &res, r.ask(ctx, "roots", ListRootsInput(), &res, opts)
}

func (r *ServerRequest[P]) ask(ctx context.Context, kind string, in *InputRequest, out any, opts []AskOption) error {
	var o askOptions
	for _, f := range opts {
		f(&o)
	}
	if r.task != nil && r.info.stateless {
		// A task waits for tasks/update instead of a retried request.
		return r.task.ask(ctx, kind, o.key, in, out)
	}
	if !r.info.stateless {
		defer r.Session.waitOnClient()()
		var raw json.RawMessage
		if err := r.Session.connection().Call(r.about(ctx), in.Method, in.Params, &raw); err != nil {
			return err
		}
		return r.Session.decodeClientResult(in.Method, raw, out)
	}
	if r.input == nil {
		return fmt.Errorf("mcp: %s cannot ask the client for input", in.Method)
	}
	r.input.asks++
	key := o.key
	if key == "" {
		key = fmt.Sprintf("%s-%d", kind, r.input.asks)
	}
	if ok, err := r.input.answers.Decode(key, out); ok || err != nil {
		if err != nil {
			return invalidParams("inputResponses["+key+"]", err)
		}
		return nil
	}
	if r.input.pending == nil {
		r.input.pending = InputRequests{}
	}
	r.input.pending[key] = in
	return ErrInputRequired
}

// missingCapability is the error for a request that needs a capability the
// client did not declare; its data names it as a ClientCapabilities object
// (for example {"requiredCapabilities": {"sampling": {}}}).
func missingCapability(what, v string) *Error {
	code := int64(CodeMissingClientCapability)
	if !IsStateless(v) {
		code = CodeInvalidRequest
	}
	required := map[string]any{}
	if name, sub, ok := strings.Cut(what, "."); ok {
		required[name] = map[string]any{sub: map[string]any{}}
	} else {
		required[what] = map[string]any{}
	}
	return transport.NewError(code, "Missing required client capability: "+what, map[string]any{"requiredCapabilities": required})
}

// requestState is what the server entrusts to the client between rounds.
type requestState struct {
	Binding string         `json:"b"`
	Answers InputResponses `json:"a"`
	Asked   []string       `json:"k"`
	// Principal is who it was handed to (principalKey), "" for a session
	// with none bound: another principal's request refuses it.
	Principal string `json:"p,omitempty"`
	// Expires is when seal made it, plus stateLifetime, in Unix seconds.
	// A state without one (0) has expired.
	Expires int64 `json:"e"`
	// Nonce makes each sealed state unique: two rounds that ask the same
	// of the same request within a second would otherwise seal the same
	// text, and a server that lets an answered state be used once (the
	// facade's approvals) could not tell a replay from a new round.
	Nonce string `json:"n,omitempty"`
}

// newStateKey returns a random key for signing request state.
func newStateKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// seal signs state so that a client cannot alter it.
//
// With an empty keyring it returns "" and logs why: the retry then carries
// no state and is asked again, which fails safe where sealing with no key
// would let a client forge answers.
func (s *Server) seal(st *requestState) string {
	keys := s.sealKeys()
	if len(keys) == 0 || len(keys[0]) == 0 {
		s.log.Error("mcp: no key to seal requestState with: the keyring is empty")
		return ""
	}
	st.Expires = s.stateClock().Add(stateLifetime).Unix()
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	st.Nonce = base64.RawURLEncoding.EncodeToString(nonce[:])
	b, _ := json.Marshal(st)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac(keys[0], b))
}

// open verifies and decodes sealed state.
func (s *Server) open(sealed string) (*requestState, error) {
	body, sig, ok := strings.Cut(sealed, ".")
	if !ok {
		return nil, errors.New("malformed")
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, errors.New("malformed")
	}
	ok = false
	for _, k := range s.sealKeys() {
		if len(k) > 0 && hmac.Equal(got, mac(k, b)) {
			ok = true
			break
		}
	}
	if !ok {
		return nil, errors.New("signature mismatch: the state was altered, comes from another server, or was sealed with a key since retired")
	}
	var st requestState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	if s.stateClock().Unix() >= st.Expires {
		return nil, errStateExpired
	}
	return &st, nil
}

// prepareInput sets up the multi round-trip state of a stateless request:
// the verified answers of earlier rounds plus the answers this retry
// carries for what was asked. binding ties the state to this exact request;
// it hashes the arguments, so it is called only when there is state to check
// or to hand out.
func (ss *ServerSession) prepareInput(ci *callInfo, binding binding, responses InputResponses, state string) (*input, error) {
	if !ci.stateless {
		return nil, nil
	}
	// answers stays nil until there is one: most calls have none.
	in := &input{binding: binding}
	asked := map[string]bool{}
	if state != "" {
		st, err := ss.srv.open(state)
		if err != nil {
			return nil, invalidParams("invalid requestState", err)
		}
		if st.Binding != binding.key() {
			return nil, invalidParams("invalid requestState: it belongs to a different request", nil)
		}
		if st.Principal != principalKey(ss.boundPrincipal()) {
			return nil, invalidParams("invalid requestState: it was handed to another principal", nil)
		}
		for k, v := range st.Answers {
			in.setAnswer(k, v)
		}
		for _, k := range st.Asked {
			asked[k] = true
		}
	}
	for k, v := range responses {
		// Only answers to what the server asked count: a client cannot
		// plant answers to questions the handler has not reached.
		if asked[k] {
			in.setAnswer(k, v)
			in.fresh = append(in.fresh, k)
		}
	}
	return in, nil
}

// inputRequired returns the InputRequiredResult for a run that asked for
// input it did not have, or nil.
func (ss *ServerSession) inputRequired(ci *callInfo, in *input) *InputRequiredResult {
	if in == nil || len(in.pending) == 0 {
		return nil
	}
	answers := in.answers
	if answers == nil {
		answers = InputResponses{} // sealed as before: "a":{}
	}
	st := &requestState{Binding: in.binding.key(), Answers: answers, Principal: principalKey(ss.boundPrincipal())}
	for k := range in.pending {
		st.Asked = append(st.Asked, k)
	}
	res := &InputRequiredResult{InputRequests: in.pending, RequestState: ss.srv.seal(st)}
	res.Meta = Meta{MetaServerInfo: ss.srv.implMeta}
	return res
}

// runWithInput runs user code that may ask the client for input: it sets
// up the multi round-trip state, takes one of the session's slots, and,
// when the run asked for input it did not have, answers with the input
// requests whatever the run returned.
func (ss *ServerSession) runWithInput(ctx context.Context, ci *callInfo, binding binding, responses InputResponses, state string, run func(*input) (any, error)) (any, error) {
	in, err := ss.prepareInput(ci, binding, responses, state)
	if err != nil {
		return nil, err
	}
	if err := ss.acquire(ctx); err != nil {
		return nil, err
	}
	defer ss.release()
	res, err := run(in)
	if ir := ss.inputRequired(ci, in); ir != nil {
		return ir, nil
	}
	return res, err
}

// binding names a request for its state: method, target and arguments.
type binding struct {
	method, target string
	args           json.RawMessage
}

func bindingOf(method, target string, args json.RawMessage) binding {
	return binding{method, target, args}
}

// key is the binding as the state holds it. It hashes the arguments, so
// prepareInput calls it only when there is state to check or hand out.
func (b binding) key() string {
	h := sha256.New()
	h.Write([]byte(b.method + "\x00" + b.target + "\x00"))
	h.Write(b.args)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// setAnswer records a verified answer.
func (in *input) setAnswer(key string, v json.RawMessage) {
	if in.answers == nil {
		in.answers = InputResponses{}
	}
	in.answers[key] = v
}
