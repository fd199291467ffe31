package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// jsonTaskStore keeps tasks as JSON, as a store shared by replicas does:
// what JSON does not carry (the legacy session a task is bound to, its
// principal) is lost.
type jsonTaskStore struct{ m MemoryTaskStore }

func (s *jsonTaskStore) Put(ctx context.Context, t *Task) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	var c Task
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	return s.m.Put(ctx, &c)
}

func (s *jsonTaskStore) Get(ctx context.Context, id string) (*Task, error) { return s.m.Get(ctx, id) }
func (s *jsonTaskStore) Delete(ctx context.Context, id string) error       { return s.m.Delete(ctx, id) }

// A 2025-11-25 task is its session's alone. In a store that does not keep
// that binding (one that serializes tasks), the task came back bound to
// no session, which is how a stateless task looks: any 2026-07-28 request
// of the same principal (without authorization, anyone) that learned its
// ID could read its result and cancel it. A session's task IDs are marked
// as such, which no serialization loses, and stateless requests never see
// them.
func TestSessionTaskNotStatelessInSerializingStore(t *testing.T) {
	srv, release, returned := stubbornTasks(t, &ServerOptions{TaskStore: &jsonTaskStore{}})
	a, legacy, id := legacyHoldTask(t, srv)
	ss := stateSession(t, srv, "")
	if got := getTask(t, ss, id); !strings.Contains(got, `"code":-32602`) {
		t.Errorf("a stateless tasks/get of a session's task: %s; want -32602", got)
	}
	close(release)
	await(t, returned, "the handler to return")
	a.Close()
	<-legacy.Done()
}
