package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/winbridge/winbridge/transport"
)

// serverMethods are the requests a Server answers.
var serverMethods = map[string]func(*ServerSession, context.Context, *transport.Request) (any, error){
	"initialize":       (*ServerSession).initialize,
	"ping":             (*ServerSession).ping,
	"server/discover":  (*ServerSession).discover,
	"tools/list":       (*ServerSession).toolsList,
	"tools/call":       (*ServerSession).toolsCall,
	"logging/setLevel": (*ServerSession).setLevel,

	"resources/list":           (*ServerSession).resourcesList,
	"resources/templates/list": (*ServerSession).templatesList,
	"resources/read":           (*ServerSession).resourcesRead,
	"resources/subscribe":      (*ServerSession).subscribe,
	"resources/unsubscribe":    (*ServerSession).subscribe,
	"prompts/list":             (*ServerSession).promptsList,
	"prompts/get":              (*ServerSession).promptsGet,
	"completion/complete":      (*ServerSession).complete,
	"subscriptions/listen":     (*ServerSession).subscriptionsListen,
	"tasks/get":                (*ServerSession).tasksGet,
	"tasks/update":             (*ServerSession).tasksUpdate,
	"tasks/cancel":             (*ServerSession).tasksCancel,
	"tasks/result":             (*ServerSession).tasksResult,
	"tasks/list":               (*ServerSession).tasksList,
	"skills/list":              (*ServerSession).skillsList,
	"skills/get":               (*ServerSession).skillsGet,
	"resources/directory/read": (*ServerSession).readDirectory,
}

// decodeParams decodes a request's params into p; absent params decode as {}.
func decodeParams(r *transport.Request, p any) error {
	if len(r.Params) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Params, p); err != nil {
		return invalidParams("invalid params for "+r.Method, err)
	}
	return nil
}

// EmptyResult is the result of requests that return nothing.
type EmptyResult struct {
	ResultEnvelope
}

func (ss *ServerSession) initialize(_ context.Context, r *transport.Request) (any, error) {
	var p InitializeParams
	if err := decodeParams(r, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, invalidParams(`initialize needs "protocolVersion"`, nil)
	}
	v := negotiate(p.ProtocolVersion, ss.srv.opts.Versions)
	// Only 2025-03-26 had JSON-RPC batches. initialize runs on the read
	// loop, so the next message read already sees the setting.
	ss.connection().AllowBatches(v == Version20250326)
	ss.mu.Lock()
	ss.initialized = true
	ss.version = v
	ss.client = &clientID{info: p.ClientInfo, caps: p.Capabilities}
	ss.mu.Unlock()
	caps := ss.srv.capabilities()
	if v == Version20251125 && ss.srv.hasTaskTools() {
		caps.Tasks = map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
			"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
	}
	return &InitializeResult{
		ProtocolVersion: v,
		Capabilities:    caps,
		ServerInfo:      forImplementation(ss.srv.impl, v),
		Instructions:    ss.srv.opts.Instructions,
	}, nil
}

func (ss *ServerSession) ping(_ context.Context, r *transport.Request) (any, error) {
	var p RequestParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	if ci.stateless {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: ping does not exist in " + ci.version + "; use server/discover"}
	}
	res := &EmptyResult{}
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}

// discover answers server/discover in any state: legacy clients never send
// it, and a 2026-07-28 client may probe before it knows the server's era.
func (ss *ServerSession) discover(_ context.Context, r *transport.Request) (any, error) {
	var p RequestParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	if v := pm.version; pm.isString && !(IsStateless(v) && ss.srv.supports(v)) {
		return nil, ss.srv.unsupported(v)
	}
	res := &DiscoverResult{
		SupportedVersions: ss.srv.opts.Versions,
		Capabilities:      ss.srv.capabilities(),
		Instructions:      ss.srv.opts.Instructions,
		CacheHint:         ss.srv.cacheHint(),
	}
	if ss.srv.hasTaskTools() {
		res.Capabilities.Extensions = map[string]map[string]any{ExtensionTasks: {}}
	}
	if ss.srv.skills.len() > 0 {
		if res.Capabilities.Extensions == nil {
			res.Capabilities.Extensions = map[string]map[string]any{}
		}
		res.Capabilities.Extensions[ExtensionSkills] = skillsCapability()
	}
	ss.finish(&callInfo{stateless: true, client: &noClient}, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) setLevel(_ context.Context, r *transport.Request) (any, error) {
	var p SetLevelParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	if ci.stateless {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: logging/setLevel does not exist in " + ci.version + "; set " + MetaLogLevel + " in each request's _meta"}
	}
	if !p.Level.valid() {
		return nil, invalidParams(fmt.Sprintf("unknown logging level %q", p.Level), nil)
	}
	ss.mu.Lock()
	ss.logLevel = p.Level
	ss.mu.Unlock()
	return &EmptyResult{}, nil
}

func (ss *ServerSession) toolsList(_ context.Context, r *transport.Request) (any, error) {
	tools, next, ci, err := listPage(ss, r, &ss.srv.tools, func(t *serverTool, v string) *Tool { return forTool(t.tool, v) })
	if err != nil {
		return nil, err
	}
	res := &ListToolsResult{Tools: tools, NextCursor: next}
	ss.finishCacheable(ci, &res.CacheHint, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) toolsCall(ctx context.Context, r *transport.Request) (any, error) {
	var p CallToolParams
	pm, err := decodeCallToolParams(r, &p)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	st, ok := ss.srv.tools.get(p.Name)
	if !ok {
		if ss.srv.opts.UnknownTool == nil {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown tool: %q", p.Name)}
		}
		st = unknownTool(p.Name, ss.srv.opts.UnknownTool)
	}
	support := st.tool.Execution.taskSupport()
	tasks := support != TaskForbidden && ci.tasksNegotiated(&p)
	if support == TaskRequired && !tasks {
		return nil, missingTasksCapability(ci.version)
	}
	if tasks && !st.tool.Execution.HandlerStartsTask {
		return ss.toolsCallTask(ctx, r, ci, st, &p)
	}
	return ss.runWithInput(ctx, ci, bindingOf(r.Method, p.Name, p.Arguments), p.InputResponses, p.RequestState, func(in *input) (any, error) {
		req := &CallToolRequest{Session: ss, ID: r.ID, Params: &p, info: ci, input: in, tasksAllowed: tasks}
		res, err := st.call(ctx, req)
		if req.created != nil && (in == nil || len(in.pending) == 0) {
			return ss.createdResult(ci, req.created), nil
		}
		if err != nil {
			return nil, err
		}
		res = forCallResult(res, ci.version)
		return ss.stampCallResult(ci, res), nil // encoded in one pass, with no MarshalJSON inside
	})
}

// acquire takes one of the session's slots for user code; a request
// cancelled while it waits gives up.
func (ss *ServerSession) acquire(ctx context.Context) error {
	// A free slot is taken without ctx.Done, which makes a channel for
	// the context on every call.
	select {
	case ss.sem <- struct{}{}:
		return nil
	default:
	}
	select {
	case ss.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives back the slot acquire took.
func (ss *ServerSession) release() { <-ss.sem }
