package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/winbridge/winbridge/client"
)

// pages is a session whose list method answers one page after another.
type pages struct {
	session
	answers []string
}

func (p *pages) Call(_ context.Context, _ string, _, result any, _ ...client.CallOption) error {
	next := p.answers[0]
	p.answers = p.answers[1:]
	return json.Unmarshal([]byte(next), result)
}

// An empty list stays a list: a server's "resources": [] used to come out
// as null, which reads as a missing member.
func TestListAllKeepsAnEmptyList(t *testing.T) {
	for name, tc := range map[string]struct {
		answers []string
		want    string
	}{
		"empty":         {[]string{`{"resources":[]}`}, `{"resources":[]}`},
		"empty pages":   {[]string{`{"resources":[],"nextCursor":"c"}`, `{"resources":[]}`}, `{"resources":[]}`},
		"items merged":  {[]string{`{"resources":[{"uri":"a"}],"nextCursor":"c"}`, `{"resources":[{"uri":"b"}]}`}, `{"resources":[{"uri":"a"},{"uri":"b"}]}`},
		"no list named": {[]string{`{}`}, `{}`},
	} {
		t.Run(name, func(t *testing.T) {
			var raw json.RawMessage
			if err := listAll(context.Background(), &pages{answers: tc.answers}, "resources/list", &raw); err != nil {
				t.Fatal(err)
			}
			if string(raw) != tc.want {
				t.Errorf("got %s, want %s", raw, tc.want)
			}
		})
	}
}
