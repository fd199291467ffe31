package mcp

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winbridge/winbridge/transport"
)

// A protocolVersion of null is there but is not a string. A map held it as
// a nil any, and the server read only a string as a version: an
// initialized session's request with it stayed legacy, and server/discover
// let it pass. protoMeta must not take the nil for "a string version".
func TestNullProtocolVersion(t *testing.T) {
	const params = `{"_meta":{"io.modelcontextprotocol/protocolVersion":null,"progressToken":"p"}}`
	r := &transport.Request{Method: "tools/list", Params: []byte(params)}

	ss := newServerSession(NewServer(&Implementation{Name: "s", Version: "1"}, nil))
	ss.initialized, ss.version, ss.client = true, Version20251125, &clientID{info: Implementation{Name: "legacy"}}
	var p PaginatedParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		t.Fatalf("initialized session: %v, want the request served as legacy", err)
	}
	if ci.stateless || ci.client.info.Name != "legacy" {
		t.Fatalf("initialized session: stateless %v, client %q; want legacy", ci.stateless, ci.client.info.Name)
	}

	// Not initialized: refused, naming the value as the map did.
	fresh := newServerSession(NewServer(&Implementation{Name: "s", Version: "1"}, nil))
	_, err = fresh.info(r.Method, &pm, p.Meta)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUnsupportedProtocolVersion {
		t.Fatalf("uninitialized session: %v, want unsupported version", err)
	}
	if want := `Unsupported protocol version "<nil>"`; e.Message != want {
		t.Errorf("uninitialized session: %q, want %q", e.Message, want)
	}

	// server/discover checks only a version that is a string.
	dr := &transport.Request{Method: "server/discover", Params: []byte(params)}
	if _, err := fresh.discover(context.Background(), dr); err != nil {
		t.Errorf("server/discover: %v", err)
	}
}

// encoding/json decodes every "_meta" member (of any case) in turn, and a
// non-object one fails the request even when a later one is an object.
// The split must not hide the earlier ones from it.
func TestEarlierMetaNotObject(t *testing.T) {
	for _, params := range []string{
		`{"_meta":5,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		`{"_META":"s","_meta":{}}`,
		`{"_meta":[],"_Meta":null}`,
		`{"_meta":true,"progressToken":1,"\u005fmeta":{}}`,
	} {
		r := &transport.Request{Method: "ping", Params: []byte(params)}
		var want, got RequestParams
		if err := decodeParams(r, &want); err == nil {
			t.Fatalf("%s: encoding/json accepts it", params)
		}
		if _, err := decodeRequest(r, &got, &got.Meta); err == nil {
			t.Errorf("%s: decodeRequest accepts it", params)
		}
		var cp CallToolParams
		r.Method = "tools/call"
		if _, err := decodeCallToolParams(r, &cp); err == nil {
			t.Errorf("%s: decodeCallToolParams accepts it", params)
		}
	}
}

// decodeRequest, for params other than tools/call's, decodes as
// encoding/json does and takes out exactly the protocol's entries.
func TestDecodeRequestLikeDecodeParams(t *testing.T) {
	extra := []string{
		`{"cursor":"c","_meta":{"io.modelcontextprotocol/protocolVersion":null}}`,
		`{"CURSOR":"c","_Meta":{"io.modelcontextprotocol\/clientInfo":{"name":"a"},"k":1e400}}`,
		`{"cursor":5,"_meta":{}}`, `{"cursor":"c","_meta":{},"cursor":null}`,
		"{\"_meta\":{\"io.modelcontextprotocol/logLevel\":\"info\",\"x\xff\":\"\xfe\"}}",
		` null `, `{"_meta":{"a":{"b":[{"c":null}]}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	}
	for _, s := range append(extra, callToolParamsSeeds...) {
		if !transportDelivers([]byte(s)) {
			continue
		}
		r := &transport.Request{Method: "resources/list", Params: []byte(s)}
		var want, got PaginatedParams
		wantErr := decodeParams(r, &want)
		pm, gotErr := decodeRequest(r, &got, &got.Meta)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: error %v, want %v", s, gotErr, wantErr)
		}
		if wantErr != nil {
			continue
		}
		checkProtoMeta(t, []byte(s), &want.Meta, &pm)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q: (-want +got)\n%s", s, diff)
		}
	}
}
