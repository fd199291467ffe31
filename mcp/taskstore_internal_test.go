package mcp

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The in-memory store holds at most Max tasks, drops none before its TTL,
// and makes room by dropping the expired.
func TestMemoryTaskStoreBoundsAndTTL(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := &MemoryTaskStore{Max: 2, now: func() time.Time { return now }}
	ctx := context.Background()
	put := func(id string, ttl time.Duration) error {
		return m.Put(ctx, &Task{TaskID: id, Status: TaskWorking, CreatedAt: now, TTL: ttl})
	}
	if err := put("a", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := put("b", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := put("c", time.Hour); !errors.Is(err, ErrTaskLimit) {
		t.Fatalf("a third task in a store of two: %v", err)
	}
	// Updating a stored task is no new task.
	if err := m.Put(ctx, &Task{TaskID: "a", Status: TaskCompleted, CreatedAt: now, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	// Copies in and out: the caller's changes do not reach the store.
	got, err := m.Get(ctx, "a")
	if err != nil || got.Status != TaskCompleted {
		t.Fatalf("get: %+v %v", got, err)
	}
	got.Status = TaskFailed
	if again, _ := m.Get(ctx, "a"); again.Status != TaskCompleted {
		t.Fatal("a change to a returned task reached the store")
	}
	now = now.Add(time.Minute) // a's TTL has passed, b's has not
	if _, err := m.Get(ctx, "a"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("a task past its TTL: %v", err)
	}
	if err := put("c", time.Hour); err != nil {
		t.Fatalf("room made by the expired: %v", err)
	}
	if err := put("d", time.Hour); !errors.Is(err, ErrTaskLimit) {
		t.Fatalf("b and c are within their TTL: %v", err)
	}
	if err := m.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := put("d", time.Hour); err != nil {
		t.Fatal(err)
	}
}
