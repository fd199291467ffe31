package mcp

import (
	"context"
	"errors"

	"github.com/winbridge/winbridge/transport"
)

// This file serves the io.modelcontextprotocol/tasks extension (2026-07-28):
// tools/call of a task-supporting tool, tasks/get, tasks/update and
// tasks/cancel. tasks/result and tasks/list do not exist in it: the result
// is inlined in tasks/get, and task IDs are capabilities that are not
// listed.

// tasksNegotiated reports whether the client of a request declared the
// tasks extension: in the request's own _meta, since the extension is of
// the stateless era.
func (ci *callInfo) tasksNegotiated() bool {
	if !ci.stateless {
		return false
	}
	_, ok := ci.clientCaps.Extensions[ExtensionTasks]
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
	ss.finish(ci, &created.ResultEnvelope)
	created.ResultType = ResultTask
	return created, nil
}

// taskRequest checks a tasks/* request and finds its task.
func (ss *ServerSession) taskRequest(ctx context.Context, r *transport.Request, p *TaskParams) (*callInfo, *Task, error) {
	if err := decodeParams(r, p); err != nil {
		return nil, nil, err
	}
	ci, err := ss.info(r.Method, p.Meta)
	if err != nil {
		return nil, nil, err
	}
	if !ci.stateless {
		return nil, nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + r.Method + " belongs to the " + ExtensionTasks + " extension of " + Version20260728}
	}
	if !ci.tasksNegotiated() {
		return nil, nil, missingTasksCapability(ci.version)
	}
	if p.TaskID == "" {
		return nil, nil, invalidParams(r.Method+` needs "taskId"`, nil)
	}
	t, err := ss.srv.tasks.Get(ctx, p.TaskID)
	if errors.Is(err, ErrTaskNotFound) {
		return nil, nil, invalidParams("unknown task: it never existed, or its TTL has passed", nil)
	}
	if err != nil {
		return nil, nil, err
	}
	return ci, t, nil
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
	res := &GetTaskResult{Task: *t}
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) tasksUpdate(ctx context.Context, r *transport.Request) (any, error) {
	var p UpdateTaskParams
	if err := decodeParams(r, &p); err != nil {
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

// tasksCancel stops a running task; cancelling a terminal task is
// acknowledged the same way and changes nothing.
func (ss *ServerSession) tasksCancel(ctx context.Context, r *transport.Request) (any, error) {
	var p TaskParams
	ci, _, err := ss.taskRequest(ctx, r, &p)
	if err != nil {
		return nil, err
	}
	if run := ss.srv.running(p.TaskID); run != nil {
		run.cancelRun()
	}
	res := &EmptyResult{}
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}
