package mcphttp_test

import (
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/storetest"
)

// The in-memory stores keep the contract that storetest checks, as
// redisstore's do.
func TestMemoryStoreContract(t *testing.T) {
	t.Run("Sessions", func(t *testing.T) { storetest.TestSessionStore(t, &mcphttp.MemoryStore{}) })
	t.Run("Events", func(t *testing.T) {
		m := &mcphttp.MemoryStore{MaxEvents: 8, MaxEventBytes: 4096, MaxStreams: 4}
		storetest.TestEventStore(t, m.Events(), storetest.Limits{MaxEvents: 8, MaxEventBytes: 4096, MaxStreams: 4})
	})
	t.Run("Relay", func(t *testing.T) {
		r := &mcphttp.MemoryRelay{}
		storetest.TestRelay(t, r, r)
	})
	t.Run("Bus", func(t *testing.T) {
		b := &mcphttp.MemoryBus{}
		storetest.TestBus(t, b, b)
	})
}
