package jsonwalk

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// The paths are part of client.ConfigError and gateway.PolicyError
// messages: these pin them byte for byte.
func TestPaths(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Member("", "a"), `a`},
		{Member("a", "b"), `a.b`},
		{Member("a", "x.y"), `a["x.y"]`},
		{Member("a", "my-server"), `a["my-server"]`},
		{Member("", "fs/read"), `["fs/read"]`},
		{Member("a", ""), `a[""]`},
		{Member("a", "$schema_1"), `a.$schema_1`},
		{Member("a", "1x"), `a["1x"]`},
		{Member("a", `q"\`), `a["q\"\\"]`},
		{Member("a", "<b>&"), `a["\u003cb\u003e\u0026"]`},
		{Member("a", "\x00"), `a["\u0000"]`},
		{Member("a", "é"), `a["é"]`},
		{Member(Member("tools", "fs/read"), "name"), `tools["fs/read"].name`},
		{DashedMember("", "my-server"), `my-server`},
		{DashedMember("mcpServers", "my-server"), `mcpServers.my-server`},
		{DashedMember("mcpServers", "-x"), `mcpServers["-x"]`},
		{DashedMember("mcpServers", "a b"), `mcpServers["a b"]`},
		{DashedMember("a", "x.y"), `a["x.y"]`},
		{Index("a", 3), `a[3]`},
		{Index(Member("a", "x.y"), 0), `a["x.y"][0]`},
		{Index("", 0), `[0]`},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"{\n  \"a\": {,}\n}", "line 2, column 9: invalid character ',' looking for beginning of object key string"},
		{"[1,\n2,\n\n x]", "line 4, column 2: invalid character 'x' looking for beginning of value"},
		{"x", "line 1, column 1: invalid character 'x' looking for beginning of value"},
		{"", "EOF"},
		{"{", "unexpected EOF"},
		{"{} {}", "more than one JSON value"},
		{"1 x", "more than one JSON value"},
	} {
		_, err := Decode([]byte(c.in))
		if err == nil {
			t.Errorf("%q: no error", c.in)
			continue
		}
		if got := Located([]byte(c.in), err); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
	v, err := Decode([]byte(" {\"n\": 12345678901234567890} \n"))
	if err != nil {
		t.Fatal(err)
	}
	if n := v.(map[string]any)["n"]; n != json.Number("12345678901234567890") {
		t.Errorf("number decoded as %T %v, want the json.Number as written", n, n)
	}
}

func TestWalker(t *testing.T) {
	var w Walker
	wrap := func(path, problem string) error { return fmt.Errorf("%s: %s", path, problem) }
	if err := w.Err(wrap); err != nil {
		t.Fatalf("no problems, got %v", err)
	}
	doc, err := Decode([]byte(`{"o":[], "a":{}, "s":1, "b":null, "ok":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := w.Object("", doc)
	if !ok {
		t.Fatal("not an object")
	}
	if _, ok := w.Object("o", m["o"]); ok {
		t.Error("array taken as object")
	}
	if _, ok := w.Array("a", m["a"]); ok {
		t.Error("object taken as array")
	}
	if _, ok := w.String("s", m["s"]); ok {
		t.Error("number taken as string")
	}
	if w.Bool("b", m["b"]) {
		t.Error("null taken as true")
	}
	if s, ok := w.String("ok", m["ok"]); !ok || s != "x" {
		t.Errorf("got %q %v", s, ok)
	}
	w.Fail("z", "custom %d", 7)
	want := "o: want object, got array\na: want array, got object\ns: want string, got number\nb: want boolean, got null\nz: custom 7"
	err = w.Err(wrap)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	var u interface{ Unwrap() []error }
	if !errors.As(err, &u) || len(u.Unwrap()) != 5 {
		t.Errorf("want 5 joined errors, got %v", err)
	}
}

func TestTypeName(t *testing.T) {
	for v, want := range map[any]string{nil: "null", true: "boolean", json.Number("1"): "number", "": "string", 1.5: "float64"} {
		if got := TypeName(v); got != want {
			t.Errorf("%#v: got %s, want %s", v, got, want)
		}
	}
	if TypeName([]any{}) != "array" || TypeName(map[string]any{}) != "object" {
		t.Error("array or object misnamed")
	}
}
