package mcp

import (
	"bytes"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/transport"
)

// decodeCallToolParams decodes the params of tools/call as decodeRequest
// does, except that encoding/json never sees the arguments: they can be
// megabytes, which it would scan twice only to copy them as they are. The
// arguments alias r.Params, and are valid JSON.
//
// Ordinary params are split in one walk (fastObject). Others are decoded
// by encoding/json as before, from a copy of the params whose (last)
// arguments are null, so that they decode, and fail, exactly as before.
//
// The params are valid JSON: the transport hands on only messages it has
// checked whole (transport.Request.Params), so they are not checked again.
func decodeCallToolParams(r *transport.Request, p *CallToolParams) (protoMeta, error) {
	b := r.Params
	if len(b) > 0 {
		orig := *p
		var pm protoMeta
		var v [len(callToolParamsFields)][]byte
		if fastObject(b, callToolParamsFields[:], v[:]) && fastString(&p.Name, v[0]) && fastSmall(&p.InputResponses, v[2]) &&
			fastString(&p.RequestState, v[3]) && splitMeta(v[4], &pm, &p.Meta) == nil && fastSmall(&p.Task, v[5]) {
			p.Arguments = v[1]
			return pm, nil
		}
		*p = orig
	}
	args, rest, ok := splitMember(b, "arguments")
	if !ok {
		return decodeRequest(r, p, &p.Meta)
	}
	without := *r
	without.Params = rest
	pm, err := decodeRequest(&without, p, &p.Meta)
	if err != nil {
		return pm, err
	}
	p.Arguments = args
	return pm, nil
}

var callToolParamsFields = [...]string{"name", "arguments", "inputResponses", "requestState", "_meta", "task"}

// splitMember finds the member of the JSON object b that encoding/json
// would decode into a struct field named name (the last whose key equals
// name, ignoring case as encoding/json does) and returns its value, and a
// copy of b in which that value is null. It reports false when b is not a
// JSON object or has no such member. b must be valid JSON, as params are
// (transport.Request.Params).
//
// Earlier members of the same name stay in the copy: encoding/json decodes
// each in turn, and one it cannot decode into the field fails the params
// even though a later one replaces it (a _meta of 5 before a _meta object).
func splitMember(b []byte, name string) (value, rest []byte, ok bool) {
	if len(b) == 0 {
		return nil, nil, false
	}
	start, end := -1, -1
	err := jsonscan.MembersBytes(b, func(k, v []byte) bool {
		if bytes.EqualFold(k, []byte(name)) {
			start = cap(b) - cap(v) // v is b[start:end]
			end = start + len(v)
		}
		return true
	})
	if err != nil || start < 0 {
		return nil, nil, false
	}
	rest = make([]byte, 0, len(b)-(end-start)+len("null"))
	rest = append(append(append(rest, b[:start]...), "null"...), b[end:]...)
	return b[start:end], rest, true
}
