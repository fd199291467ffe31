package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	bigpkg "math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// duplicateMember returns the location of the first object member whose
// name repeats an earlier one of the same object (names compared after
// unescaping, ignoring case), or "". Parsers disagree on duplicates (most
// keep the last, some the first), and encoding/json fills a struct field
// from any member whose name equals the field's ignoring case (as
// bytes.EqualFold compares, so the Kelvin sign is a k): {"path":"ok",
// "PATH":"../secret"} is checked as path "ok" here and runs as
// "../secret" in a Go upstream. Arguments the facade checked must mean
// the same to the upstream, so they are refused. raw must be valid JSON.
func duplicateMember(raw []byte) string {
	return dupIn(raw)
}

// dupIn returns the location, relative to v, of the first repeated
// member in v. It runs on every call: the location is built only on the
// way back from a find, and keys are compared as the bytes MembersBytes
// gives (which alias v unless decoded), so that a clean argument object
// costs no allocation.
func dupIn(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		var buf [16][]byte
		seen := buf[:0]
		found := ""
		_ = jsonscan.MembersBytes(v, func(k, mv []byte) bool {
			if slices.ContainsFunc(seen, func(s []byte) bool { return bytes.EqualFold(s, k) }) {
				found = "." + string(k)
				return false
			}
			seen = append(seen, k)
			if d := dupIn(mv); d != "" {
				found = "." + string(k) + d
				return false
			}
			return true
		})
		return found
	case '[':
		found, i := "", 0
		_ = jsonscan.Elements(v, func(e []byte) bool {
			if d := dupIn(e); d != "" {
				found = "[" + strconv.Itoa(i) + "]" + d
				return false
			}
			i++
			return true
		})
		return found
	}
	return ""
}

// maxExactFloat is 2^53: every integer of smaller magnitude is a float64
// exactly, and float64 comparisons between such integers are exact.
const maxExactFloat = 1 << 53

// maxExactDigits bounds the length of a number literal read exactly
// (big.Rat): any float64 is written exactly in fewer characters.
const maxExactDigits = 1100

// shortNumber is a number literal as a refusal quotes it: the model
// chose its length.
func shortNumber(s string) string {
	if len(s) <= 40 {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", s[:32], len(s))
}

// errInexact marks a number the facade cannot judge exactly.
var errInexact = errors.New("inexact number")

// decodeArgs decodes arguments for the validator with every number
// exact: an integer that fits 64 bits as int64 or uint64 (jsonschema-go
// compares those exactly, as big.Rat, and types them "integer"), any
// other number as the float64 it reads as, provided that float64 does
// not make it look like another integer. A number written as an integer
// that float64 cannot hold (past 2^53 and beyond 64 bits), or a fraction
// that float64 rounds to an integer (9007199254740992.5,
// 1.00000000000000000001), is refused: the validator could only judge
// the float64 it rounds to. big is the location of the first integer of
// magnitude 2^53 or more, "" when there is none: such an integer is
// judged exactly only against a schema whose own numbers are exact
// (bigExact).
func decodeArgs(raw []byte, near schemaNumbers) (v any, big string, err error) {
	return decodeExact(raw, "argument", near)
}

// decodeExact is decodeArgs for any JSON value; what names its members
// in errors ("argument", "structuredContent member").
func decodeExact(raw []byte, what string, near schemaNumbers) (v any, big string, err error) {
	// jsonscan.DecodeAny decodes as a json.Decoder with UseNumber does,
	// in one pass and with no decoder to allocate; json.Decoder only
	// says what is wrong with what it cannot decode.
	ok := jsonscan.Valid(raw) // DecodeAny takes valid JSON only
	if ok {
		v, ok = jsonscan.DecodeAny(raw)
	}
	if !ok {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, "", err
		}
		if _, err := d.Token(); err != io.EOF {
			return nil, "", errors.New("invalid JSON: data after the value")
		}
	}
	v, err = exactNumbers(v, "", what, near, &big)
	return v, big, err
}

func exactNumbers(v any, where, what string, near schemaNumbers, big *string) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, mv := range t {
			nv, err := exactNumbers(mv, where+"."+k, what, near, big)
			if err != nil {
				return nil, err
			}
			t[k] = nv
		}
	case []any:
		for i, e := range t {
			nv, err := exactNumbers(e, where+"["+strconv.Itoa(i)+"]", what, near, big)
			if err != nil {
				return nil, err
			}
			t[i] = nv
		}
	case json.Number:
		n, isBig, err := exactNumber(string(t))
		if err == nil && near != nil {
			err = near.judgeable(string(t), n)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, placeOf(where), err)
		}
		if isBig && *big == "" {
			*big = placeOf(where)
		}
		return n, nil
	}
	return v, nil
}

// placeOf is where a value is, as errors quote it: "" for the whole
// value (a bare number), cut at maxAuditName (the sender chose the names).
func placeOf(where string) string {
	if where == "" {
		return "(the whole value)"
	}
	return cutUTF8(where[1:], maxAuditName)
}

// exactNumber is s as int64, uint64 or float64 (see decodeArgs); big
// reports a magnitude of 2^53 or more.
func exactNumber(s string) (n any, big bool, err error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, i >= maxExactFloat || i <= -maxExactFloat, nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u, true, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s is out of the range the facade can check", errInexact, shortNumber(s))
	}
	if f != math.Trunc(f) {
		return f, false, nil // a fraction reads as one: the literal is not an integer either
	}
	if f == 0 {
		// Zero, or a number too small for float64 (1e-400): the latter
		// is not expanded (1e-99999999 would cost a 10^99999999).
		if strings.ContainsAny(strings.SplitN(strings.ToLower(s), "e", 2)[0], "123456789") {
			return nil, false, fmt.Errorf("%w: %s is too small for the facade to check", errInexact, shortNumber(s))
		}
		return f, false, nil
	}
	// f is an integer: is s that integer? "1.0", "1e3" and
	// "9.007199254740993e15" are; "1.00000000000000000001" is not.
	// ParseFloat succeeded, so the exponent is small enough to expand;
	// the digits are bounded, as reading them exactly costs their square.
	if len(s) > maxExactDigits {
		return nil, false, fmt.Errorf("%w: %s has more digits than the facade checks exactly (%d)", errInexact, shortNumber(s), maxExactDigits)
	}
	r, ok := new(bigpkg.Rat).SetString(s)
	if !ok {
		return nil, false, fmt.Errorf("%w: %s cannot be read exactly", errInexact, shortNumber(s))
	}
	if r.IsInt() && r.Num().IsInt64() {
		i := r.Num().Int64()
		return i, i >= maxExactFloat || i <= -maxExactFloat, nil
	}
	if r.IsInt() && r.Num().IsUint64() {
		return r.Num().Uint64(), true, nil
	}
	if fr, exact := r.Float64(); !exact || fr != f {
		return nil, false, fmt.Errorf("%w: %s is not exactly a 64-bit number, and the facade can only check it rounded", errInexact, shortNumber(s))
	}
	return f, math.Abs(f) >= maxExactFloat, nil
}

// bigExact reports whether a schema judges integers of magnitude 2^53
// or more exactly in jsonschema-go, which reads the schema's own numbers
// as float64 and multipleOf on the instance as float64: no "multipleOf"
// member anywhere, and every number in it of magnitude 2^53 or more a
// float64 exactly (maximum 9007199254740995 reads as ...996 and would
// let ...996 through). Numbers below 2^53 that float64 rounds (0.1) are
// never between two such integers, so they do not matter here.
func bigExact(schema []byte) bool { return numbersExact(schema, false) }

// numbersExact is bigExact for a schema whose every multipleOf the facade
// judges or guards (multipleOfJudged; multiple.go): then only the other
// numbers matter.
func numbersExact(schema []byte, multipleOfJudged bool) bool {
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case string:
			if strings.EqualFold(t, "multipleOf") && !multipleOfJudged {
				return false
			}
		case json.Number:
			f, err := strconv.ParseFloat(string(t), 64)
			if err != nil {
				return false
			}
			if math.Abs(f) < maxExactFloat {
				continue
			}
			if len(t) > maxExactDigits {
				return false
			}
			r, ok := new(bigpkg.Rat).SetString(string(t))
			if !ok {
				return false
			}
			if fr, exact := r.Float64(); !exact || fr != f {
				return false
			}
		}
	}
}
