package mcp

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/wirenames"
	"github.com/winbridge/winbridge/transport"
)

// A 2026-07-28 request carries the protocol's own entries in its _meta:
// the protocol version, the client's info and capabilities, its log level.
// The server takes them out before the handler sees the request, and the
// handler reads them through the request (ProtocolVersion, ClientInfo,
// ClientCapabilities), typed.
//
// Why: the client sends the same entries with every request. Decoding them
// into maps, and copying the maps so that no handler could change what
// another request sees, was most of what a stateless request cost beyond a
// legacy one. Split from the raw text, the info and capabilities compare
// as bytes with the last ones decoded, and decode only when they change.

// protoMeta is what a request's _meta says to the protocol.
type protoMeta struct {
	version      string // protocolVersion, when a string
	isString     bool   // protocolVersion is a string (version)
	hasVersion   bool   // protocolVersion is there, of whatever type
	otherVersion any    // protocolVersion when it is not a string, for the error
	logLevel     string // logLevel, when a string
	info, caps   []byte // clientInfo and clientCapabilities as sent; nil when absent
}

// errMetaNotObject reports a request whose _meta is neither an object nor null.
var errMetaNotObject = errors.New(`"_meta" must be an object`)

// splitMeta splits b, the raw _meta of a request (valid JSON, or nil when
// there is none), into the protocol's entries, into pm, and the others,
// into *meta (nil when there are none). The raw entries in pm alias b.
func splitMeta(b []byte, pm *protoMeta, meta *Meta) error {
	*meta = nil
	if b == nil || string(b) == "null" {
		return nil
	}
	var rest Meta
	err := jsonscan.MembersBytes(b, func(k, v []byte) bool {
		switch string(k) {
		case MetaProtocolVersion:
			pm.hasVersion = true
			if s, ok := metaString(v); ok {
				pm.version, pm.isString, pm.otherVersion = s, true, nil
			} else {
				// otherVersion is nil for a null: isString, not
				// otherVersion, says whether there is a version.
				pm.version, pm.isString, pm.otherVersion = "", false, decodeValue(v)
			}
			return true
		case MetaLogLevel:
			pm.logLevel, _ = metaString(v)
			return true
		case MetaClientInfo:
			pm.info = v
			return true
		case MetaClientCapabilities:
			pm.caps = v
			return true
		}
		if rest == nil {
			rest = Meta{}
		}
		rest[string(k)] = decodeValue(v)
		return true
	})
	if err != nil {
		return errMetaNotObject
	}
	*meta = rest
	return nil
}

// metaString decodes v when it is a JSON string; a protocol version or
// log level costs no allocation.
func metaString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	return wirenames.Unquote(v)
}

// decodeValue decodes v, valid JSON, as Meta decodes its entries: numbers
// as json.Number.
func decodeValue(v []byte) any {
	if x, ok := jsonscan.DecodeAny(v); ok {
		return x
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	_ = d.Decode(&x) // v is valid JSON: this cannot fail
	return x
}

// decodeRequest decodes r's params into p, whose _meta field is meta, and
// takes the protocol's entries out of the _meta into the result; encoding/json
// never sees the _meta. Absent params decode as {}.
func decodeRequest(r *transport.Request, p any, meta *Meta) (protoMeta, error) {
	var pm protoMeta
	raw, rest, ok := splitMember(r.Params, "_meta")
	if !ok {
		// No _meta, or params that are not a valid object: the general
		// decoding says what is wrong with them.
		err := decodeParams(r, p)
		return pm, err
	}
	if err := json.Unmarshal(rest, p); err != nil {
		return pm, invalidParams("invalid params for "+r.Method, err)
	}
	if err := splitMeta(raw, &pm, meta); err != nil {
		return pm, invalidParams("invalid params for "+r.Method, err)
	}
	return pm, nil
}
