package client

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// TestToolCallEncodesAsCallToolParams checks that a toolCall encodes to
// the bytes the client sent before, when it encoded the arguments into
// CallToolParams.Arguments and then the params.
func TestToolCallEncodesAsCallToolParams(t *testing.T) {
	type args struct {
		Text string `json:"text"`
		N    *int   `json:"n,omitempty"`
	}
	var nilArgs *args
	meta := mcp.Meta{mcp.MetaProtocolVersion: mcp.LatestVersion, mcp.MetaClientInfo: mcp.Implementation{Name: "c", Version: "1"}, mcp.MetaProgressToken: "p1"}
	for _, a := range []any{
		nil,
		map[string]any{"text": "a <b> & \"c\"\n\u2028", "n": 1.5},
		&args{Text: strings.Repeat("x", 100)},
		nilArgs,
		json.RawMessage(`{ "a" : [1, 2] }`),
		json.RawMessage(nil),
		[]int{1},
	} {
		for _, tc := range []*toolCall{
			newToolCall("echo", a),
			newToolCall("t<>", a), // a name encoding/json escapes
			newToolCall("", a),
			{CallToolParams: mcp.CallToolParams{Name: "t<>", InputResponses: mcp.InputResponses{"k": json.RawMessage(`{"action":"accept"}`)}, RequestState: "s", Meta: meta}, args: a},
		} {
			p := tc.CallToolParams
			if a != nil {
				b, err := json.Marshal(a)
				if err != nil {
					t.Fatal(err)
				}
				p.Arguments = b
			}
			want, err := json.Marshal(&p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.encode()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("args %#v:\n got %s\nwant %s", a, got, want)
			}
		}
		// A stateless call's _meta, encoded once by the client: the
		// params encode as the reflection on toolCallWire, with the
		// _meta spliced in, did.
		raw := json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","x":"<&>"}`)
		for _, tc := range []*toolCall{
			{CallToolParams: mcp.CallToolParams{Name: "echo"}, args: a, rawMeta: raw},
			{CallToolParams: mcp.CallToolParams{Name: "echo", Meta: mcp.Meta{}}, args: a, rawMeta: raw},
			{CallToolParams: mcp.CallToolParams{Name: "t<>"}, args: a, rawMeta: raw},
		} {
			b, err := json.Marshal(&toolCallWire{tc.Name, tc.args, nil, "", nil, nil})
			if err != nil {
				t.Fatal(err)
			}
			want := spliceMeta(b, raw)
			got, err := tc.encode()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("args %#v, raw _meta:\n got %s\nwant %s", a, got, want)
			}
		}
	}
}

func TestIsComplete(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"content":[]}`:                                          true,
		`{"content":[],"resultType":"complete"}`:                  true,
		`{"resultType":"input_required","inputRequests":{}}`:      false,
		`{"resultType":"input_required"}`:                         false,
		`{"ResultType":"complete"}`:                               false,
		`{"resultType":"complete","resultType":"complete"}`:       false,
		`{"resultType":"compl\u0065te"}`:                          false,
		`{"resultType":5}`:                                        false,
		`{"resultType":"complete","requestState":"x"}`:            false,
		`{"resultType":"complete","INPUTREQUESTS":5}`:             false,
		`{"content":[{"type":"text","text":"resultType"}],"x":1}`: true,
		`null`: false,
	} {
		if got := isComplete([]byte(raw)); got != want {
			t.Errorf("isComplete(%s) = %v, want %v", raw, got, want)
		}
	}
}
