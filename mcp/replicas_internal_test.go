package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"
)

type testKeys struct {
	mu   sync.Mutex
	keys [][]byte
}

func (k *testKeys) StateKeys() [][]byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys
}

// State sealed by one replica opens on another that shares the keyring,
// after a rotation too; a tampered seal, or one of a retired key, does not.
func TestKeyringSealsAcrossReplicas(t *testing.T) {
	ring := &testKeys{keys: [][]byte{[]byte("key-one-key-one-key-one-key-one!")}}
	a := NewServer(nil, &ServerOptions{StateKeys: ring})
	b := NewServer(nil, &ServerOptions{StateKeys: ring})
	st := &requestState{Binding: "call", Asked: []string{"q"}}
	sealed := a.seal(st)
	if got, err := b.open(sealed); err != nil || got.Binding != "call" {
		t.Fatalf("B opens A's state: %v, %v", got, err)
	}
	body, sig, _ := strings.Cut(sealed, ".")
	tampered := body[:len(body)-2] + "xx." + sig
	if _, err := b.open(tampered); err == nil {
		t.Fatal("a tampered state was accepted")
	}
	ring.mu.Lock()
	ring.keys = [][]byte{[]byte("key-two-key-two-key-two-key-two!"), ring.keys[0]}
	ring.mu.Unlock()
	if _, err := b.open(sealed); err != nil {
		t.Fatalf("after a rotation, state of the previous key: %v", err)
	}
	ring.mu.Lock()
	ring.keys = ring.keys[:1]
	ring.mu.Unlock()
	if _, err := b.open(sealed); err == nil {
		t.Fatal("state of a retired key was accepted")
	}
	// A server with its own key refuses the replicas' state.
	if _, err := NewServer(nil, nil).open(a.seal(st)); err == nil {
		t.Fatal("a server with another key accepted the state")
	}
	ring.mu.Lock()
	ring.keys = nil
	ring.mu.Unlock()
	if s := a.seal(st); s != "" {
		t.Fatalf("an empty keyring sealed %q", s)
	}
}

type countBus struct {
	mu   sync.Mutex
	subs []func(Change)
	pubs []Change
}

func (b *countBus) Publish(_ context.Context, c Change) error {
	b.mu.Lock()
	b.pubs = append(b.pubs, c)
	subs := b.subs
	b.mu.Unlock()
	for _, f := range subs {
		f(c)
	}
	return nil
}

func (b *countBus) Subscribe(f func(Change)) func() {
	b.mu.Lock()
	b.subs = append(b.subs, f)
	b.mu.Unlock()
	return func() {}
}

// With a bus, list changes and resource updates go out through it, once.
func TestBusCarriesChanges(t *testing.T) {
	bus := &countBus{}
	s := NewServer(nil, &ServerOptions{Bus: bus})
	s.ResourceUpdated(context.Background(), "x://y")
	s.AddTool(&Tool{Name: "t", InputSchema: []byte(`{"type":"object"}`)}, func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
	bus.mu.Lock()
	defer bus.mu.Unlock()
	want := []Change{{Method: "notifications/resources/updated", URI: "x://y"}, {Method: "notifications/tools/list_changed"}}
	if len(bus.pubs) != 2 || bus.pubs[0] != want[0] || bus.pubs[1] != want[1] {
		t.Fatalf("published %+v, want %+v", bus.pubs, want)
	}
}
