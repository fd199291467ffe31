package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Input types of the kinds tools have, for comparing argDecoder with
// json.Unmarshal.

type argsPlain struct {
	Text  string  `json:"text"`
	N     int     `json:"n,omitempty"`
	I8    int8    `json:"i8"`
	U     uint16  `json:"u"`
	F     float64 `json:"f"`
	F32   float32 `json:"f32"`
	B     bool    `json:"b"`
	Untag string
	Dash  string `json:"-"`
	//lint:ignore SA5008 "-," names the member "-", which is the case under test
	Dash2 string `json:"-,"`
	//lint:ignore SA5008 a malformed tag on purpose: the fast decoder must treat it as encoding/json does
	Weird string `json:"a\"b"`
	//lint:ignore U1000 an unexported field must be left alone by the decoder
	hidden string
}

type level string

type argsNested struct {
	Path    string            `json:"path"`
	Opt     *int              `json:"opt,omitempty"`
	List    []string          `json:"list"`
	Map     map[string]int    `json:"map"`
	Any     any               `json:"any"`
	Inner   *argsPlain        `json:"inner"`
	Value   argsPlain         `json:"value"`
	When    time.Time         `json:"when"`
	Level   level             `json:"level"`
	Num     json.Number       `json:"num"`
	Raw     json.RawMessage   `json:"raw"`
	Strings map[string]string `json:"strings"`
}

type argsQuoted struct {
	N int `json:"n,string"`
}

type argsEmbedded struct {
	argsPlain
	X int `json:"x"`
}

type argsFoldClash struct {
	A string `json:"a"`
	B string `json:"A"`
}

var argDecoderSeeds = []string{
	`{}`, `{"text":"hi"}`, `{"text":"a\nb\u00e9","n":3,"i8":-128,"u":65535,"f":1.5e3,"f32":3.25,"b":true,"Untag":"u"}`,
	`{"i8":128}`, `{"u":-1}`, `{"u":65536}`, `{"n":1.0}`, `{"n":1e2}`, `{"n":"1"}`, `{"f32":1e39}`, `{"f":1e400}`,
	`{"text":null,"n":null,"b":null}`, `{"text":5}`, `{"b":"true"}`, `{"b":1}`, `{"TEXT":"x"}`, `{"text":"a","text":"b"}`,
	`{"-":"dash","Dash":"d"}`, `{"a\"b":"w"}`, `{"hidden":"h"}`, `{"unknown":[1,{"x":null}],"text":"t"}`,
	`{"path":"p","opt":3,"list":["a","b"],"map":{"k":1},"any":{"x":[1,"y"]},"inner":{"text":"i"},"value":{"n":2}}`,
	`{"opt":null,"list":null,"map":null,"any":null,"inner":null,"value":null}`, `{"opt":"x"}`, `{"list":"x"}`,
	`{"inner":{"TEXT":"x"}}`, `{"when":"2020-01-02T03:04:05Z"}`, `{"when":"yesterday"}`, `{"level":"debug"}`, `{"level":3}`,
	`{"num":12.5}`, `{"num":"12"}`, `{"num":"x"}`, `{"raw":{"a" : 1}}`, `{"strings":{"a":"b","c":null}}`,
	`{"n":"5"}`, `{"x":1,"text":"e"}`, `{"a":"1","A":"2"}`, `[]`, `"s"`, `5`, `null`,
	"{\"text\":\"\xff\"}", "{\"te\\u0078t\":\"escaped key\"}",
}

var argDecoderTypes = []reflect.Type{
	reflect.TypeFor[argsPlain](), reflect.TypeFor[argsNested](), reflect.TypeFor[argsQuoted](),
	reflect.TypeFor[argsEmbedded](), reflect.TypeFor[argsFoldClash](), reflect.TypeFor[benchEchoIn](),
	reflect.TypeFor[struct{}](), reflect.TypeFor[map[string]any](),
}

// checkArgDecoder fails unless argDecoder, where it decodes args, decodes
// them as json.Unmarshal does.
func checkArgDecoder(t *testing.T, typ reflect.Type, args []byte) {
	d := newArgDecoder(typ)
	if d == nil || !json.Valid(args) {
		return
	}
	got := reflect.New(typ)
	if !d.decode(args, got.Elem()) {
		return
	}
	want := reflect.New(typ)
	if err := json.Unmarshal(args, want.Interface()); err != nil {
		t.Fatalf("%v: decoded %s, which json.Unmarshal rejects: %v", typ, args, err)
	}
	if diff := cmp.Diff(want.Interface(), got.Interface(), cmp.AllowUnexported(argsPlain{}, argsEmbedded{})); diff != "" {
		t.Fatalf("%v: %s (-json.Unmarshal +argDecoder)\n%s", typ, args, diff)
	}
}

func TestArgDecoderMatchesUnmarshal(t *testing.T) {
	for _, typ := range argDecoderTypes {
		for _, s := range argDecoderSeeds {
			checkArgDecoder(t, typ, []byte(s))
		}
	}
	// The types it takes, and the ones it leaves to json.Unmarshal.
	for typ, want := range map[reflect.Type]bool{
		reflect.TypeFor[argsPlain](): true, reflect.TypeFor[argsNested](): true, reflect.TypeFor[benchEchoIn](): true,
		reflect.TypeFor[argsQuoted](): false, reflect.TypeFor[argsEmbedded](): false, reflect.TypeFor[argsFoldClash](): false,
		reflect.TypeFor[map[string]any](): false, reflect.TypeFor[time.Time](): false,
	} {
		if got := newArgDecoder(typ) != nil; got != want {
			t.Errorf("newArgDecoder(%v) != nil is %v, want %v", typ, got, want)
		}
	}
	// And the common case is decoded here, not left to json.Unmarshal.
	var in argsPlain
	if !newArgDecoder(reflect.TypeFor[argsPlain]()).decode([]byte(argDecoderSeeds[2]), reflect.ValueOf(&in).Elem()) || in.Untag != "u" {
		t.Errorf("the fast path declined %s: %+v", argDecoderSeeds[2], in)
	}
}

func FuzzArgDecoder(f *testing.F) {
	for i := range argDecoderTypes {
		for _, s := range argDecoderSeeds {
			f.Add(i, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, i int, args []byte) {
		if i < 0 {
			i = -i
		}
		checkArgDecoder(t, argDecoderTypes[i%len(argDecoderTypes)], args)
	})
}
