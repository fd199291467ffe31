package redisstore

import (
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp/redisstore/internal/redistest"
	"github.com/winbridge/winbridge/mcp/mcphttp/storetest"
)

// The Redis stores keep the contract that storetest checks, as the
// in-memory ones do; the relay and the bus between two replicas' Stores.
func TestRedisStoreContract(t *testing.T) {
	r := redistest.Start(t)
	a := open(t, r.URL(), &Options{MaxEvents: 8, MaxEventBytes: 4096, MaxStreams: 4})
	b := open(t, r.URL(), &Options{MaxEvents: 8, MaxEventBytes: 4096, MaxStreams: 4})
	t.Run("Sessions", func(t *testing.T) { storetest.TestSessionStore(t, a.Sessions) })
	t.Run("Events", func(t *testing.T) {
		storetest.TestEventStore(t, a.Events, storetest.Limits{MaxEvents: 8, MaxEventBytes: 4096, MaxStreams: 4})
	})
	t.Run("Relay", func(t *testing.T) { storetest.TestRelay(t, a.Relay, b.Relay) })
	t.Run("Bus", func(t *testing.T) { storetest.TestBus(t, a.Bus, b.Bus) })
}
