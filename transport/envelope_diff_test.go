package transport

import (
	"reflect"
	"testing"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// oldDecodeEnvelope is decodeEnvelope as it was before the envelope was
// checked as it was split: jsonscan.ValidMessage, then MembersBytes.
func oldDecodeEnvelope(b []byte) (envelope, *rejection) {
	var env envelope
	t := trimJSONSpace(b)
	if len(t) > 0 && t[0] == '{' && jsonscan.ValidMessage(t) {
		var m members
		if err := jsonscan.MembersBytes(t, m.set); err != nil {
			return env, &rejection{code: CodeParseError, message: "parse error: " + err.Error()}
		}
		return splitEnvelope(env, &m)
	}
	// The slow path is unchanged, and reached on the same inputs when
	// MembersValid agrees with Valid (FuzzMembersValid).
	return decodeEnvelope(b)
}

// FuzzDecodeEnvelopeOld checks that the fused check-and-split gives the
// same envelope or rejection as the two passes did, for every input.
func FuzzDecodeEnvelopeOld(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"id":1,"method":"a","params":{}} x`))
	f.Add([]byte(`{"id":1,"method":"a","\u0069d":2}`))
	f.Add([]byte("{\"id\":1,\"method\":\"a\",\"\xff\":2}"))
	f.Add([]byte(`{"id":1,"result":{},"result":[1,}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		env, rej := decodeEnvelope(data)
		oenv, orej := oldDecodeEnvelope(data)
		if !reflect.DeepEqual(env, oenv) || !reflect.DeepEqual(rej, orej) {
			t.Fatalf("%q:\n got %+v %+v\nwant %+v %+v", data, env, rej, oenv, orej)
		}
	})
}
