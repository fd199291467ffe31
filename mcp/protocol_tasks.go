package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/winbridge/winbridge/transport"
)

// This file serves the io.modelcontextprotocol/tasks extension (2026-07-28):
// tools/call of a task-supporting tool, tasks/get, tasks/update and
// tasks/cancel. tasks/result and tasks/list do not exist in it: the result
// is inlined in tasks/get, and task IDs are capabilities that are not
// listed.

// tasksNegotiated reports whether the client of a request can take a
// task: in 2026-07-28, it declared the extension in the request's own
// _meta; in 2025-11-25, it asked for one with the task param.
func (ci *callInfo) tasksNegotiated(p *CallToolParams) bool {
	if !ci.stateless {
		return ci.version == Version20251125 && p != nil && p.Task != nil
	}
	_, ok := ci.client.caps.Extensions[ExtensionTasks]
	return ok
}

// missingTasksCapability is the error for a request that needs the tasks
// extension from a client that did not declare it.
func missingTasksCapability(v string) *Error {
	code := int64(CodeMissingClientCapability)
	if !IsStateless(v) {
		code = CodeInvalidRequest
	}
	return transport.NewError(code, "Missing required client capability: extension "+ExtensionTasks,
		map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionTasks: map[string]any{}}}})
}

// hasTaskTools reports whether any tool may run as a task, which is when
// the server declares the extension.
func (s *Server) hasTaskTools() bool {
	for _, st := range s.tools.all() {
		if st.tool.Execution.taskSupport() != TaskForbidden {
			return true
		}
	}
	return false
}

// toolsCallTask starts a call of a task-supporting tool as a task, once its
// arguments have passed validation (invalid ones are reported at once, as
// a tool error).
func (ss *ServerSession) toolsCallTask(ctx context.Context, r *transport.Request, ci *callInfo, st *serverTool, p *CallToolParams) (any, error) {
	req := &CallToolRequest{Session: ss, ID: r.ID, Params: p, info: ci, tasksAllowed: true}
	if res, err := st.validate(req); res != nil || err != nil {
		if err != nil {
			return nil, err
		}
		res = forCallResult(res, ci.version)
		ss.finish(ci, &res.ResultEnvelope)
		return res.wire(), nil
	}
	created, err := ss.srv.startTask(ctx, req, st.invoke)
	if err != nil {
		return nil, err
	}
	return ss.createdResult(ci, created), nil
}

// createdResult is the answer to a tools/call that became a task, in the
// shape of the request's revision.
func (ss *ServerSession) createdResult(ci *callInfo, created *CreateTaskResult) any {
	if !ci.stateless {
		return &createTaskResultLegacy{Task: created.legacy()}
	}
	ss.finish(ci, &created.ResultEnvelope)
	created.ResultType = ResultTask
	return created
}

// taskRequest checks a tasks/* request and finds its task.
func (ss *ServerSession) taskRequest(ctx context.Context, r *transport.Request, p *TaskParams) (*callInfo, *Task, error) {
	pm, err := decodeRequest(r, p, &p.Meta)
	if err != nil {
		return nil, nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, nil, err
	}
	if err := checkTaskMethod(r.Method, ci); err != nil {
		return nil, nil, err
	}
	if p.TaskID == "" {
		return nil, nil, invalidParams(r.Method+` needs "taskId"`, nil)
	}
	t, err := ss.srv.tasks.Get(ctx, p.TaskID)
	// A legacy session sees its own tasks only, a stateless request none
	// of a session's, and a principal only its own: to everyone else they
	// do not exist.
	if errors.Is(err, ErrTaskNotFound) || err == nil && (t.owner != ss.ownerKey(ci) || t.Principal != ss.boundPrincipal() ||
		ci.stateless && strings.HasPrefix(t.TaskID, sessionTaskPrefix)) {
		return nil, nil, invalidParams("unknown task: it never existed, or its TTL has passed", nil)
	}
	if err != nil {
		return nil, nil, err
	}
	return ci, t, nil
}

// ownerKey is the owner a task of this request has: the session in the
// legacy era, none in the stateless one.
func (ss *ServerSession) ownerKey(ci *callInfo) *ServerSession {
	if ci.stateless {
		return nil
	}
	return ss
}

// checkTaskMethod checks that a tasks/* method exists in the request's
// revision and that the client may use it.
func checkTaskMethod(method string, ci *callInfo) error {
	legacyOnly := method == "tasks/result" || method == "tasks/list"
	switch {
	case ci.stateless && legacyOnly,
		!ci.stateless && (ci.version != Version20251125 || method == "tasks/update"):
		return &Error{Code: CodeMethodNotFound, Message: "Method not found: " + method + " does not exist in " + ci.version}
	case ci.stateless:
		if _, ok := ci.client.caps.Extensions[ExtensionTasks]; !ok {
			return missingTasksCapability(ci.version)
		}
	}
	return nil
}

// running returns the run of a task started by this process, or nil.
func (s *Server) running(id string) *taskRun {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	return s.taskRuns[id]
}

func (ss *ServerSession) tasksGet(ctx context.Context, r *transport.Request) (any, error) {
	var p TaskParams
	ci, t, err := ss.taskRequest(ctx, r, &p)
	if err != nil {
		return nil, err
	}
	if !ci.stateless {
		return &taskResultLegacy{taskLegacy: t.legacy()}, nil
	}
	res := &GetTaskResult{Task: *t}
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) tasksUpdate(ctx context.Context, r *transport.Request) (any, error) {
	var p UpdateTaskParams
	if _, err := decodeRequest(r, &p, &p.Meta); err != nil {
		return nil, err
	}
	tp := TaskParams{TaskID: p.TaskID, Meta: p.Meta}
	ci, _, err := ss.taskRequest(ctx, r, &tp)
	if err != nil {
		return nil, err
	}
	if run := ss.srv.running(p.TaskID); run != nil {
		run.update(p.InputResponses)
	}
	res := &EmptyResult{}
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}

// tasksCancel stops a running task. In 2026-07-28 cancelling a terminal
// task is acknowledged the same way and changes nothing; 2025-11-25
// refuses it, and answers with the cancelled task.
func (ss *ServerSession) tasksCancel(ctx context.Context, r *transport.Request) (any, error) {
	var p TaskParams
	ci, t, err := ss.taskRequest(ctx, r, &p)
	if err != nil {
		return nil, err
	}
	if !ci.stateless && t.Status.Terminal() {
		return nil, invalidParams("the task is "+string(t.Status)+" already: only a running task can be cancelled", nil)
	}
	if run := ss.srv.running(p.TaskID); run != nil {
		run.cancelRun()
	}
	if !ci.stateless {
		if t, err = ss.srv.tasks.Get(ctx, p.TaskID); err != nil {
			return nil, err
		}
		return &taskResultLegacy{taskLegacy: t.legacy()}, nil
	}
	res := &EmptyResult{}
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}

// tasksResult answers tasks/result (2025-11-25): it waits for the task to
// end and answers as the tools/call would have, with the task named in
// _meta: the result of a completed task, the error of a failed one.
func (ss *ServerSession) tasksResult(ctx context.Context, r *transport.Request) (any, error) {
	var p TaskParams
	_, t, err := ss.taskRequest(ctx, r, &p)
	if err != nil {
		return nil, err
	}
	if run := ss.srv.running(p.TaskID); run != nil && !t.Status.Terminal() {
		select {
		case <-run.finished:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if t, err = ss.srv.tasks.Get(ctx, p.TaskID); err != nil {
			return nil, invalidParams("unknown task: its TTL has passed", nil)
		}
	}
	switch t.Status {
	case TaskCompleted:
		var res map[string]any
		if err := json.Unmarshal(t.Result, &res); err != nil {
			return nil, err
		}
		meta, _ := res["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[MetaRelatedTask] = map[string]any{"taskId": t.TaskID}
		res["_meta"] = meta
		return res, nil
	case TaskFailed:
		return nil, t.Error
	default:
		return nil, &Error{Code: CodeInvalidRequest, Message: "the task was " + string(t.Status) + ": it has no result"}
	}
}

// tasksList answers tasks/list (2025-11-25): the session's own tasks that
// have not expired, oldest first.
func (ss *ServerSession) tasksList(ctx context.Context, r *transport.Request) (any, error) {
	var p PaginatedParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	if err := checkTaskMethod(r.Method, ci); err != nil {
		return nil, err
	}
	s := ss.srv
	s.taskMu.Lock()
	ids := append([]string(nil), s.sessionTasks[ss]...)
	s.taskMu.Unlock()
	var reg registry[*Task]
	var live []string
	for _, id := range ids {
		if t, err := s.tasks.Get(ctx, id); err == nil && t.owner == ss {
			reg.add(id, t)
			live = append(live, id)
		}
	}
	s.taskMu.Lock()
	if len(live) < len(ids) {
		s.sessionTasks[ss] = live // forget the expired
	}
	s.taskMu.Unlock()
	page, next, err := reg.page(p.Cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	res := &listTasksResultLegacy{Tasks: make([]taskLegacy, len(page)), NextCursor: next}
	for i, t := range page {
		res.Tasks[i] = t.legacy()
	}
	return res, nil
}

// endSessionTasks cancels and forgets the tasks of a legacy session that
// ended: no one else may see them.
func (s *Server) endSessionTasks(ss *ServerSession) {
	if !ss.ownsTasks.Load() {
		return // as most sessions, and every stateless one
	}
	s.taskMu.Lock()
	ids := s.sessionTasks[ss]
	delete(s.sessionTasks, ss)
	var runs, forgotten []*taskRun
	for _, id := range ids {
		if run := s.taskRuns[id]; run != nil {
			runs = append(runs, run)
		}
		if run := s.counted[id]; run != nil {
			forgotten = append(forgotten, run)
		}
	}
	s.taskMu.Unlock()
	for _, run := range runs {
		run.cancelRun()
	}
	for _, id := range ids {
		_ = s.tasks.Delete(context.Background(), id)
	}
	// Out of the store, they stop counting, but those whose handlers
	// still run count until they return.
	for _, run := range forgotten {
		s.uncount(run, false, true)
	}
}
