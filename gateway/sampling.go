package gateway

import (
	"bytes"
	"fmt"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// An upstream's sampling/createMessage and elicitation/create requests,
// and the client's answers, pass through the facade as encoded: decoded
// into Go structs their numbers would be float64, and a tool_use block's
// input, a request's metadata, a form's defaults and bounds or the values
// the user gave would change on the way (12345678901234567890 becomes
// 12345678901234567000). The facade changes only what it must, in place,
// and leaves every other byte as the upstream wrote it: the keys an
// upstream may not write in _meta, at the top level and below it
// (reserved.go), and a sampling request's includeContext. The client
// package has checked that the params decode as the typed ones do, and
// package mcp checks the client's answer the same way.

// includeContextName is the member of a sampling request that asks the
// client to add context: "thisServer" is the facade to the client, so
// every upstream, and the user's model would read one upstream the
// arguments and results of the others' tools. It is forwarded as "none".
var includeContextName = []byte("includeContext")

var (
	messagesName = []byte("messages")
	toolsName    = []byte("tools")
	resourceName = []byte("resource")
	noContext    = []byte(`"none"`)
)

// upstreamSampling returns the params of an upstream's sampling request
// as the facade forwards them, or an error when a message's content block
// nests deeper than a tool result's may (maxRawBlockDepth): the walk of
// upstreamRawBlock reads a tool_result's whole text again for each
// tool_result inside it, and without the bound a message of them nested
// thousands deep cost the square of its size (10 MB: minutes of CPU).
func upstreamSampling(raw []byte) ([]byte, error) {
	var err error
	block := func(b []byte) ([]byte, bool) {
		if err != nil {
			return nil, false
		}
		if jsonscan.NestsDeeper(b, maxRawBlockDepth) {
			err = fmt.Errorf("a message's content block nests deeper than %d levels", maxRawBlockDepth)
			return nil, false
		}
		return upstreamRawBlock(b)
	}
	out, _ := editMembers(raw, func(k, v []byte) ([]byte, bool) {
		switch {
		case bytes.EqualFold(k, metaName):
			return upstreamRawMeta(v)
		case bytes.EqualFold(k, includeContextName):
			// Member names are matched without case, as encoding/json
			// matches them into the field.
			if s, ok := jsonscan.Unquote(v); ok && s != "" && !bytes.Equal(v, noContext) {
				return noContext, true
			}
		case bytes.EqualFold(k, messagesName):
			return editElements(v, func(m []byte) ([]byte, bool) {
				return editMembers(m, func(k, v []byte) ([]byte, bool) {
					switch {
					case bytes.EqualFold(k, metaName):
						return upstreamRawMeta(v)
					case bytes.EqualFold(k, contentName) && len(v) > 0 && v[0] == '[':
						return editElements(v, block)
					case bytes.EqualFold(k, contentName):
						return block(v)
					}
					return nil, false
				})
			})
		case bytes.EqualFold(k, toolsName):
			return editElements(v, func(t []byte) ([]byte, bool) {
				return editMembers(t, func(k, v []byte) ([]byte, bool) {
					if bytes.EqualFold(k, metaName) {
						return upstreamRawMeta(v)
					}
					return nil, false
				})
			})
		}
		return nil, false
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// upstreamElicitation returns the params of an upstream's elicitation
// request as the facade forwards them.
func upstreamElicitation(raw []byte) []byte {
	out, _ := editMembers(raw, func(k, v []byte) ([]byte, bool) {
		if bytes.EqualFold(k, metaName) {
			return upstreamRawMeta(v)
		}
		return nil, false
	})
	return out
}

// editMembers returns the object obj with the value of each member that
// edit changes replaced, and whether any was; obj itself when none was
// (or it is not an object). edit gets each member's name, decoded, and
// value.
func editMembers(obj []byte, edit func(k, v []byte) ([]byte, bool)) ([]byte, bool) {
	var edits []rawEdit
	_ = jsonscan.MembersBytes(obj, func(k, v []byte) bool {
		if nv, ok := edit(k, v); ok {
			edits = append(edits, rawEdit{at: offsetIn(obj, v), n: len(v), with: nv})
		}
		return true
	})
	if edits == nil {
		return obj, false
	}
	return splice(obj, edits), true
}

// editElements is editMembers for the elements of an array.
func editElements(arr []byte, edit func(e []byte) ([]byte, bool)) ([]byte, bool) {
	var edits []rawEdit
	_ = jsonscan.Elements(arr, func(e []byte) bool {
		if ne, ok := edit(e); ok {
			edits = append(edits, rawEdit{at: offsetIn(arr, e), n: len(e), with: ne})
		}
		return true
	})
	if edits == nil {
		return arr, false
	}
	return splice(arr, edits), true
}
