package mcp

import "slices"

// Protocol revisions this package speaks.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	// Version20260728 is the first stateless revision: no initialize
	// handshake; every request carries its protocol version, client info and
	// capabilities in _meta, and clients find servers out with server/discover.
	Version20260728 = "2026-07-28"

	// LatestVersion is the newest revision.
	LatestVersion = Version20260728
	// LatestLegacyVersion is the newest revision with the initialize handshake.
	LatestLegacyVersion = Version20251125
)

// SupportedVersions lists every revision this package speaks, newest first.
var SupportedVersions = []string{Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}

// IsStateless reports whether revision v is of the stateless era (2026-07-28
// and later), in which requests carry their own protocol metadata.
// Revisions are dates, so they order as strings.
func IsStateless(v string) bool { return v >= Version20260728 }

// negotiate picks the revision to answer an initialize request with: the
// requested one if supported, else the newest supported legacy revision, as
// the lifecycle section of the specification requires.
func negotiate(requested string, supported []string) string {
	if slices.Contains(supported, requested) && !IsStateless(requested) {
		return requested
	}
	for _, v := range supported {
		if !IsStateless(v) {
			return v
		}
	}
	return LatestLegacyVersion
}

// Keys of _meta entries defined by the protocol.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaProgressToken      = "progressToken"
)
