// Package redisstore keeps the state that replicas of one MCP server
// share on Redis: legacy sessions and the events of their streams
// (mcphttp.SessionStore, mcphttp.EventStore), list changes and resource
// updates (mcp.Bus, on Redis pub/sub), clients' answers to requests
// another replica sent (mcphttp.Relay, on pub/sub too), and the keys that seal requestState
// (mcp.Keyring, with rotation). It is a module of its own, so that the
// winbridge library gains no dependency for those who do not import it.
//
// Every key it writes expires or is bounded: sessions expire after the
// handler's SessionTimeout without a request and hold at most
// mcphttp.MaxStateMessages messages and mcphttp.MaxStateBytes bytes
// (checked in the appending script), streams RetainFor after
// their last event and hold at most MaxEvents events and MaxEventBytes
// bytes each (the newest event kept whatever its size), a session
// keeps at most MaxStreams streams, and the
// keyring holds at most Keep keys. Redis itself must be private to the
// replicas (a password or ACL user in the URL, TLS with rediss:// across
// hosts): what it holds lets anyone who reads it forge requestState and
// speak in any session. It needs one Redis (a primary, with replicas or
// Sentinel if wanted), not Redis Cluster: appending an event trims a
// session's streams in one script, whose keys would span hash slots.
// docs/DEPLOY.md has the setup.
package redisstore
