package transport

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// jsonrpc2 hands its ObjectStream a pointer to an unexported struct,
// anyMessage, that holds either a *jsonrpc2.Request or a *jsonrpc2.Response,
// and encodes it with encoding/json: its decoder reads every message twice,
// through maps and interfaces, and its encoder builds a map per request.
// That cost about a quarter of a small call's CPU on each side. The stream
// instead reads and writes the two pointers directly, after checking once,
// by reflection, that the struct is laid out exactly as rpcMessage below;
// should a jsonrpc2 release change it, the check fails and the stream goes
// through encoding/json as before, so nothing breaks, it only gets slower.
type rpcMessage struct {
	request  *jsonrpc2.Request
	response *jsonrpc2.Response
}

// rpcMessageType caches the one type that passed the layout check.
var rpcMessageType atomic.Pointer[reflect.Type]

// asRPCMessage returns v as an *rpcMessage, or nil when v is not a pointer
// to jsonrpc2's anyMessage with the expected layout.
func asRPCMessage(v any) *rpcMessage {
	t := reflect.TypeOf(v)
	if known := rpcMessageType.Load(); known == nil || *known != t {
		if !isRPCMessage(t) {
			return nil
		}
		rememberRPCMessage(t)
	}
	return (*rpcMessage)(reflect.ValueOf(v).UnsafePointer())
}

// rememberRPCMessage is apart so that only the first call allocates.
func rememberRPCMessage(t reflect.Type) { rpcMessageType.Store(&t) }

func isRPCMessage(t reflect.Type) bool {
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	e := t.Elem()
	if e.Kind() != reflect.Struct || e.PkgPath() != "github.com/sourcegraph/jsonrpc2" || e.Name() != "anyMessage" ||
		e.NumField() != 2 || e.Size() != unsafe.Sizeof(rpcMessage{}) {
		return false
	}
	req, resp := e.Field(0), e.Field(1)
	return req.Name == "request" && req.Type == reflect.TypeFor[*jsonrpc2.Request]() && req.Offset == unsafe.Offsetof(rpcMessage{}.request) &&
		resp.Name == "response" && resp.Type == reflect.TypeFor[*jsonrpc2.Response]() && resp.Offset == unsafe.Offsetof(rpcMessage{}.response)
}

// deliver hands jsonrpc2 a request or a response (exactly one non-nil).
func deliver(v any, req *jsonrpc2.Request, resp *jsonrpc2.Response) error {
	if m := asRPCMessage(v); m != nil {
		m.request, m.response = req, resp
		return nil
	}
	b, err := encodeRPC(req, resp)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// encodeRPC encodes a request or a response (exactly one non-nil) as
// jsonrpc2's own encoder does, for the paths that hand jsonrpc2 bytes.
func encodeRPC(req *jsonrpc2.Request, resp *jsonrpc2.Response) ([]byte, error) {
	if req != nil {
		return json.Marshal(req)
	}
	return json.Marshal(resp)
}

// rpcOut is what jsonrpc2 asked the stream to send, split into raw members.
type rpcOut struct {
	isRequest bool
	id        json.RawMessage // nil for a notification
	method    json.RawMessage // a JSON string, unless req is set
	num       uint64          // the id instead, when hasNum (direct path, integer id)
	hasNum    bool
	req       *jsonrpc2.Request // direct path: method and id read from it
	params    json.RawMessage   // nil when absent
	result    json.RawMessage
	errObj    json.RawMessage // non-nil for an error response
}

// splitOutgoing reads what jsonrpc2 wrote, directly when it can.
func splitOutgoing(v any) (rpcOut, error) {
	m := asRPCMessage(v)
	if m == nil || (m.request == nil) == (m.response == nil) {
		return splitEncoded(v)
	}
	var o rpcOut
	if r := m.request; r != nil {
		if r.Meta != nil || len(r.ExtraFields) > 0 {
			return splitEncoded(v)
		}
		o.isRequest = true
		if !r.Notif {
			if r.ID.IsString {
				o.id = appendRPCID(nil, r.ID)
			} else {
				o.num, o.hasNum = r.ID.Num, true
			}
		}
		o.req = r
		if r.Params != nil {
			o.params = *r.Params
		}
		return o, nil
	}
	r := m.response
	if r.ID.IsString {
		o.id = appendRPCID(nil, r.ID)
	} else {
		o.num, o.hasNum = r.ID.Num, true
	}
	switch {
	case r.Error != nil:
		b, err := json.Marshal(r.Error)
		if err != nil {
			return o, err
		}
		o.errObj = b
	case r.Result != nil:
		o.result = *r.Result
	default:
		return splitEncoded(v) // let jsonrpc2's encoder report it
	}
	return o, nil
}

// splitEncoded is the general path: encode with jsonrpc2's own encoder and
// split the members.
func splitEncoded(v any) (rpcOut, error) {
	var o rpcOut
	b, err := json.Marshal(v)
	if err != nil {
		return o, err
	}
	m := make(map[string]json.RawMessage, 5)
	if err := jsonscan.Members(b, func(k string, v []byte) bool {
		m[k] = v
		return true
	}); err != nil {
		return o, fmt.Errorf("transport: jsonrpc2 wrote an unreadable message: %w", err)
	}
	method, isRequest := m["method"]
	o.isRequest = isRequest
	o.id = m["id"]
	o.method = method
	o.params = m["params"]
	o.result = m["result"]
	o.errObj = m["error"]
	return o, nil
}

func appendRPCID(b []byte, id jsonrpc2.ID) []byte {
	if id.IsString {
		return appendJSONString(b, id.Str)
	}
	return strconv.AppendUint(b, id.Num, 10)
}

// appendJSONString appends s as a JSON string, as encoding/json would
// (without its HTML escaping, which JSON-RPC does not need).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			enc, _ := json.Marshal(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// rpcRequest is the request jsonrpc2 sees for an incoming message.
func rpcRequest(method string, slot uint64, notif bool, params json.RawMessage) *jsonrpc2.Request {
	r := &jsonrpc2.Request{Method: method, Notif: notif}
	if !notif {
		r.ID = jsonrpc2.ID{Num: slot}
	}
	if params != nil {
		r.Params = &params
	}
	return r
}
