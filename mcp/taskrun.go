package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// Defaults of the task options of ServerOptions.
const (
	DefaultTaskTTL             = time.Hour
	DefaultTaskPollInterval    = time.Second
	DefaultMaxTaskResultMemory = 256 << 20
)

// TaskFunc is the work of a task: what runs in the background once a tool
// call has become a task. req is the call's request; asking the client for
// input (Elicit, CreateMessage, ListRoots) parks the task in input_required
// until the client answers with tasks/update. ctx ends when the task is
// cancelled or its TTL passes.
type TaskFunc func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// RunAsTask finishes a tool call as a task: when the client supports tasks,
// it starts work in the background and the call answers with a
// CreateTaskResult (whatever the handler returns after this is ignored);
// otherwise it runs work now and returns its outcome. A handler calls it
// where its work goes to the background, typically after gathering input by
// multi round-trip; the tool sets ToolExecution.HandlerStartsTask. Called
// from a handler that already runs as a task, it runs work inline.
func RunAsTask(ctx context.Context, req *CallToolRequest, work TaskFunc) (*CallToolResult, error) {
	if req.input != nil && len(req.input.pending) > 0 {
		return nil, ErrInputRequired // the input comes first, in another round
	}
	if req.task != nil || !req.tasksAllowed || req.created != nil {
		return work(ctx, req)
	}
	created, err := req.Session.srv.startTask(ctx, req, work)
	if err != nil {
		return nil, err
	}
	req.created = created
	return nil, nil
}

// taskRun is a task running in this process.
type taskRun struct {
	srv     *Server
	version string
	cancel  context.CancelFunc
	// owner is the legacy session that started the task, nil for a
	// stateless request; notes carries its status notifications in order.
	owner    *ServerSession
	notes    chan Task
	finished chan struct{} // closed once the task is terminal
	// id and principal are the task's, fixed at its creation.
	id, principal string
	// working (its handler has not returned) and kept (the default store
	// holds it: its TTL has not passed and no session end forgot it) are
	// what keep the task counted against the task limits; under
	// Server.taskMu.
	working, kept bool
	// held is the bytes of its result counted against
	// MaxTaskResultMemory while kept; under Server.taskMu.
	held int64

	mu      sync.Mutex
	task    Task           // the latest state, as last stored
	answers InputResponses // answers not yet taken by the asks that wait for them
	pending InputRequests  // asked and not answered
	asks    int
	wake    chan struct{} // closed and replaced when answers arrive
}

// startTask stores a new working task and starts work on it. The task is
// stored before this returns, so that a tasks/get sent as soon as the
// CreateTaskResult arrives finds it.
func (s *Server) startTask(ctx context.Context, req *CallToolRequest, work TaskFunc) (*CreateTaskResult, error) {
	now := time.Now()
	run := &taskRun{srv: s, version: req.info.version, answers: InputResponses{}, pending: InputRequests{}, wake: make(chan struct{}), finished: make(chan struct{})}
	run.task = Task{
		TaskID:        rand.Text(),
		Status:        TaskWorking,
		CreatedAt:     now,
		LastUpdatedAt: now,
		TTL:           s.opts.TaskTTL,
		PollInterval:  s.opts.TaskPollInterval,
		Principal:     req.Session.boundPrincipal(),
	}
	if !req.info.stateless {
		// A legacy session's task is its own, and may ask for a shorter
		// TTL than the server's. Its ID says so (see sessionTaskPrefix).
		run.task.TaskID = sessionTaskPrefix + run.task.TaskID
		run.owner, run.task.owner = req.Session, req.Session
		if tm := req.Params.Task; tm != nil && tm.TTL != nil {
			run.task.TTL = shorterTTL(run.task.TTL, *tm.TTL)
		}
	}
	run.id, run.principal = run.task.TaskID, run.task.Principal
	if !s.count(run) {
		return nil, errTaskLimit()
	}
	if err := s.tasks.Put(ctx, &run.task); err != nil {
		s.uncount(run, true, true)
		if errors.Is(err, ErrTaskLimit) {
			return nil, errTaskLimit()
		}
		return nil, fmt.Errorf("storing a new task: %w", err)
	}
	// The task outlives the request: its context keeps the request's
	// values but not its cancellation.
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	run.cancel = cancel
	id := run.task.TaskID
	s.taskMu.Lock()
	s.taskRuns[id] = run
	if run.owner != nil {
		s.sessionTasks[run.owner] = append(s.sessionTasks[run.owner], id)
		run.owner.ownsTasks.Store(true)
	}
	s.taskMu.Unlock()
	if run.owner != nil {
		run.notes = make(chan Task, taskNotesBuffer)
		go run.notify()
	}
	treq := *req
	treq.task, treq.input, treq.created = run, nil, nil
	created := &CreateTaskResult{Task: run.task}
	go run.execute(tctx, &treq, work)
	time.AfterFunc(created.TTL, run.expire)
	return created, nil
}

// execute runs work and records its outcome: a tool error is a completed
// task whose result has isError set; a protocol error or a panic is a
// failed task.
func (t *taskRun) execute(ctx context.Context, req *CallToolRequest, work TaskFunc) {
	var (
		res *CallToolResult
		err error
	)
	// Counted until here, whenever that is: a handler that ignores its
	// context runs on past the task's cancellation, TTL or session.
	defer func() {
		t.srv.uncount(t, true, false)
		if hook := t.srv.taskReturned; hook != nil {
			hook()
		}
	}()
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.srv.log.Error("mcp: task panicked", taskRef(t.id), "panic", p, "stack", string(debug.Stack()))
				res, err = nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: the task panicked: %v", p)}
			}
		}()
		res, err = work(ctx, req)
	}()
	if err != nil {
		res, err = handlerFailed(err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.task.Status.Terminal() {
		return // cancelled, or expired, meanwhile
	}
	switch {
	case err != nil:
		var perr *Error
		if !errors.As(err, &perr) {
			perr = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		t.task.Status, t.task.Error = TaskFailed, perr
	default:
		if res == nil {
			res = &CallToolResult{}
		}
		res = forCallResult(res, t.version)
		if IsStateless(t.version) && res.ResultType == "" {
			c := *res
			c.ResultType = ResultComplete
			res = &c
		}
		b, merr := json.Marshal(res.wire())
		if merr != nil {
			t.task.Status, t.task.Error = TaskFailed, &Error{Code: CodeInternalError, Message: "encoding the result: " + merr.Error()}
			break
		}
		if !t.srv.holdResult(t, int64(len(b))) {
			t.task.Status, t.task.Error = TaskFailed, &Error{Code: CodeServerBusy,
				Message: "server busy: the task's result of " + strconv.Itoa(len(b)) + " bytes does not fit in what the server holds of task results (MaxTaskResultMemory); retry once some tasks have expired"}
			break
		}
		t.task.Status, t.task.Result = TaskCompleted, b
	}
	t.task.InputRequests = nil
	t.storeLocked()
	t.done()
}

// storeLocked writes the task's state to the store; t.mu is held, so that
// writes reach the store in the order of the changes.
func (t *taskRun) storeLocked() {
	t.task.LastUpdatedAt = time.Now()
	if err := t.srv.tasks.Put(context.Background(), &t.task); err != nil {
		t.srv.log.Error("mcp: storing a task", taskRef(t.id), "err", err)
	}
	t.noteLocked()
}

// taskNotesBuffer bounds the status notifications of a legacy task not yet
// sent; beyond it they are dropped (they are hints: clients poll).
const taskNotesBuffer = 16

// noteLocked queues a status notification for a legacy session's task,
// and marks a terminal task finished.
func (t *taskRun) noteLocked() {
	if t.notes != nil {
		select {
		case t.notes <- t.task:
		default:
		}
	}
	if t.task.Status.Terminal() {
		select {
		case <-t.finished:
		default:
			close(t.finished)
		}
	}
}

// notify sends a legacy task's status notifications (2025-11-25), in
// order, until the task is terminal or its session ends.
func (t *taskRun) notify() {
	send := func(task Task) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = t.owner.connection().Notify(ctx, "notifications/tasks/status", task.legacy())
		cancel()
	}
	ended := t.owner.doneChan()
	for {
		select {
		case task := <-t.notes:
			send(task)
			if task.Status.Terminal() {
				return
			}
		case <-t.finished:
			// What is queued goes out; a terminal note dropped from a
			// full queue does not keep this goroutine alive.
			for {
				select {
				case task := <-t.notes:
					send(task)
				default:
					return
				}
			}
		case <-ended:
			return
		}
	}
}

// done forgets a terminal task's run; the store keeps its outcome.
func (t *taskRun) done() {
	t.srv.taskMu.Lock()
	delete(t.srv.taskRuns, t.task.TaskID)
	t.srv.taskMu.Unlock()
}

// cancelRun stops the task if it still runs.
func (t *taskRun) cancelRun() {
	t.mu.Lock()
	if !t.task.Status.Terminal() {
		t.task.Status, t.task.InputRequests = TaskCancelled, nil
		t.storeLocked()
		t.done()
	}
	t.mu.Unlock()
	t.cancel()
}

// expire ends the task at its TTL: the work stops and the task is
// forgotten.
func (t *taskRun) expire() {
	t.mu.Lock()
	if !t.task.Status.Terminal() {
		t.task.Status = TaskCancelled
		t.noteLocked()
		t.done()
	}
	t.mu.Unlock()
	t.cancel()
	_ = t.srv.tasks.Delete(context.Background(), t.task.TaskID)
	t.srv.uncount(t, false, true)
}

// errTaskLimit answers a call that would start a task beyond MaxTasks or
// MaxTasksPerPrincipal, or one its store refused.
func errTaskLimit() *Error {
	return &Error{Code: CodeServerBusy, Message: "server busy: it holds as many tasks as it may; retry once some have expired or returned"}
}

// count counts a new task against MaxTasks and MaxTasksPerPrincipal, or
// reports false at a bound. A task counts while its handler runs, and,
// with the default store, while the store holds it: the same tasks the
// store counts, and besides them those whose handlers ignore their
// context past the task's end, which hold a goroutine each. A custom
// store bounds what it holds itself; the handlers running in this
// process are bounded here whatever the store.
func (s *Server) count(t *taskRun) bool {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	if len(s.counted) >= s.taskMax || t.principal != "" && s.taskMaxPer > 0 && s.countedBy[t.principal] >= s.taskMaxPer {
		return false
	}
	t.working, t.kept = true, s.opts.TaskStore == nil
	s.counted[t.id] = t
	if t.principal != "" {
		s.countedBy[t.principal]++
	}
	return true
}

// uncount drops what keeps t counted: its handler's run (returned) and
// its place in the default store (expired, or forgotten with its
// session). It stops counting once neither is left; each is dropped once
// however often it is called.
func (s *Server) uncount(t *taskRun, returned, forgotten bool) {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	if !t.working && !t.kept {
		return
	}
	t.working = t.working && !returned
	if t.kept && forgotten && t.held > 0 {
		s.resultBytes -= t.held
		if t.principal != "" {
			if s.resultBytesBy[t.principal] -= t.held; s.resultBytesBy[t.principal] <= 0 {
				delete(s.resultBytesBy, t.principal)
			}
		}
		t.held = 0
	}
	t.kept = t.kept && !forgotten
	if t.working || t.kept {
		return
	}
	delete(s.counted, t.id)
	if t.principal != "" {
		if s.countedBy[t.principal]--; s.countedBy[t.principal] <= 0 {
			delete(s.countedBy, t.principal)
		}
	}
}

// holdResult counts n bytes of t's result against MaxTaskResultMemory,
// or reports false when they do not fit: in all, or, for an authorized
// principal, in its quarter, so that one user cannot take the room of
// all. Only the default store's results count; t.mu is held.
func (s *Server) holdResult(t *taskRun, n int64) bool {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	if !t.kept || s.resultMax <= 0 {
		return true
	}
	if s.resultBytes+n > s.resultMax || t.principal != "" && s.resultBytesBy[t.principal]+n > max(1, s.resultMax/4) {
		return false
	}
	s.resultBytes += n
	if t.principal != "" {
		s.resultBytesBy[t.principal] += n
	}
	t.held = n
	return true
}

// taskResultBytes is the bytes of results held (for tests).
func (s *Server) taskResultBytes() int64 {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	return s.resultBytes
}

// tasksCounted is how many tasks count against MaxTasks (for tests).
func (s *Server) tasksCounted() int {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	return len(s.counted)
}

// ask is an input request from a running task: it parks the task in
// input_required until tasks/update brings the answer under key, or the
// task ends.
func (t *taskRun) ask(ctx context.Context, kind string, key string, in *InputRequest, out any) error {
	t.mu.Lock()
	t.asks++
	if key == "" {
		key = fmt.Sprintf("%s-%d", kind, t.asks)
	}
	for {
		if raw, ok := t.answers[key]; ok {
			delete(t.answers, key)
			t.mu.Unlock()
			if err := json.Unmarshal(raw, out); err != nil {
				return invalidParams("inputResponses["+key+"]", err)
			}
			return nil
		}
		if t.task.Status.Terminal() {
			t.mu.Unlock()
			return context.Canceled
		}
		if _, ok := t.pending[key]; !ok {
			t.pending[key] = in
			t.task.Status, t.task.InputRequests = TaskInputRequired, t.pendingCopy()
			t.storeLocked()
		}
		wake := t.wake
		t.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			t.mu.Lock()
			delete(t.pending, key)
			t.mu.Unlock()
			return ctx.Err()
		}
		t.mu.Lock()
	}
}

// pendingCopy is the pending requests as the store may keep them.
func (t *taskRun) pendingCopy() InputRequests {
	c := make(InputRequests, len(t.pending))
	for k, v := range t.pending {
		c[k] = v
	}
	return c
}

// update takes the client's answers to pending requests: answers to keys
// not asked are ignored, so a client cannot plant answers to questions the
// task has not reached. The task stays input_required while any request
// is unanswered.
func (t *taskRun) update(responses InputResponses) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.task.Status.Terminal() {
		return
	}
	answered := false
	for k, v := range responses {
		if _, ok := t.pending[k]; ok {
			delete(t.pending, k)
			t.answers[k] = v
			answered = true
		}
	}
	if !answered {
		return
	}
	if len(t.pending) == 0 {
		t.task.Status, t.task.InputRequests = TaskWorking, nil
	} else {
		t.task.InputRequests = t.pendingCopy()
	}
	t.storeLocked()
	close(t.wake)
	t.wake = make(chan struct{})
}

// CancelTasks cancels every task running in this process: their handlers'
// contexts end and their status becomes cancelled. Tasks outlive the
// sessions that started them (a stateless request's session ends with its
// response), so a server shutting down calls it to stop their work; the
// stored outcomes of finished tasks are kept.
func (s *Server) CancelTasks() {
	s.taskMu.Lock()
	runs := make([]*taskRun, 0, len(s.taskRuns))
	for _, run := range s.taskRuns {
		runs = append(runs, run)
	}
	s.taskMu.Unlock()
	for _, run := range runs {
		run.cancelRun()
	}
}

// shorterTTL is the server's TTL, or the client's ttl (milliseconds) where
// that is positive and shorter. It compares in milliseconds: the client's
// number converted to a Duration first could overflow and wrap to a
// negative TTL (a ttl past 9.2e12 ms, about 292 years), which would end
// the task at once.
func shorterTTL(server time.Duration, ms int64) time.Duration {
	if ms > 0 && ms < int64(server/time.Millisecond) {
		return time.Duration(ms) * time.Millisecond
	}
	return server
}

// sessionTaskPrefix starts the ID of a 2025-11-25 session's task, and no
// other (rand.Text is upper case): the binding to its session lives in
// this process only, and a store that serializes tasks returns the task
// bound to no session, as a stateless one is. The ID keeps what the
// store loses, and stateless requests never see a session's task.
const sessionTaskPrefix = "s"

// taskRef is how log lines name a task: a digest of its ID, never the ID.
// Without authorization the ID is the only key to the task (its result,
// its questions, its cancellation), so a log reader who saw it could take
// the task over; 8 bytes of SHA-256 still tell tasks apart and match a
// task whose ID one already knows.
func taskRef(id string) slog.Attr {
	sum := sha256.Sum256([]byte(id))
	return slog.String("task", "sha256:"+hex.EncodeToString(sum[:8]))
}
