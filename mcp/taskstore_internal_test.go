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

// One principal holds at most MaxPerPrincipal tasks (a quarter of Max by
// default), so it cannot fill the store for the others; tasks without a
// principal share Max only; expired tasks make room.
func TestMemoryTaskStorePerPrincipal(t *testing.T) {
	now := time.Unix(1e9, 0)
	ctx := context.Background()
	put := func(m *MemoryTaskStore, id, principal string, ttl time.Duration) error {
		return m.Put(ctx, &Task{TaskID: id, Status: TaskWorking, CreatedAt: now, TTL: ttl, Principal: principal})
	}
	m := &MemoryTaskStore{Max: 8, now: func() time.Time { return now }}
	for i := range 2 {
		if err := put(m, "alice"+string(rune('a'+i)), "alice", time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if err := put(m, "alice-c", "alice", time.Hour); !errors.Is(err, ErrTaskLimit) {
		t.Fatalf("a third task of alice with Max 8 (a quarter: 2): %v", err)
	}
	if err := put(m, "bob-a", "bob", time.Hour); err != nil {
		t.Fatalf("bob is not bound by alice's tasks: %v", err)
	}
	for i := range 5 {
		if err := put(m, "anon"+string(rune('a'+i)), "", time.Hour); err != nil {
			t.Fatalf("tasks without a principal share Max only: %v", err)
		}
	}
	if err := put(m, "anon-f", "", time.Hour); !errors.Is(err, ErrTaskLimit) {
		t.Fatalf("the store is full: %v", err)
	}
	now = now.Add(time.Minute) // alice's two have expired
	if err := put(m, "alice-c", "alice", time.Hour); err != nil {
		t.Fatalf("alice's expired tasks make room: %v", err)
	}
	// Negative: no bound of its own; an explicit bound.
	m = &MemoryTaskStore{Max: 4, MaxPerPrincipal: -1, now: func() time.Time { return now }}
	for i := range 4 {
		if err := put(m, string(rune('a'+i)), "alice", time.Hour); err != nil {
			t.Fatalf("no per-principal bound: %v", err)
		}
	}
	m = &MemoryTaskStore{Max: 100, MaxPerPrincipal: 3, now: func() time.Time { return now }}
	for i := range 3 {
		if err := put(m, string(rune('a'+i)), "alice", time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if err := put(m, "d", "alice", time.Hour); !errors.Is(err, ErrTaskLimit) {
		t.Fatalf("MaxPerPrincipal 3: %v", err)
	}
	// Updating a stored task is no new task, even at the bound.
	if err := m.Put(ctx, &Task{TaskID: "a", Status: TaskCompleted, Principal: "alice", CreatedAt: now, TTL: time.Hour}); err != nil {
		t.Fatalf("update at the bound: %v", err)
	}
}
