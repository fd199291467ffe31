package mcp

import (
	"encoding/json"
	"testing"
)

// The _meta stamped on a stateless tool result without its own encodes as
// {MetaServerInfo: the encoded Implementation}, byte for byte as it did
// when it was that map of a json.RawMessage, HTML escapes included; and
// the caller's icons changing after NewServer does not change it.
func TestInfoMetaEncoding(t *testing.T) {
	for _, impl := range []*Implementation{
		nil,
		{Name: "bench", Version: "1"},
		{Name: "<a&b>", Title: "T\u2028", Version: "1.0\"x", Description: "d", WebsiteURL: "https://x/?a=1&b=<2>",
			Icons: []Icon{{Src: "data:,<>", MIMEType: "image/png", Sizes: []string{"48x48", "any"}, Theme: "dark"}}},
	} {
		s := NewServer(impl, nil)
		implJSON, err := json.Marshal(s.impl)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(map[string]json.RawMessage{MetaServerInfo: implJSON})
		if err != nil {
			t.Fatal(err)
		}
		if impl != nil && impl.Icons != nil {
			impl.Icons[0].Src = "changed"
			impl.Icons[0].Sizes[0] = "changed"
		}
		got, err := json.Marshal(s.infoMeta)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("_meta %s, want %s", got, want)
		}
	}
}
