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
	"unicode"
	"unicode/utf8"

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
// member in v. It runs on every call and on every result the facade
// forwards as received, so it reads v once, left to right: a walk that
// split each object with jsonscan.MembersBytes and went down into its
// members read every byte once per level above it, and 256 KiB of
// arguments nested 10000 deep took seconds of CPU. The location is built
// only on a find, and names are compared as they stand in v unless they
// have escapes, so that a clean argument object costs no allocation. v
// must be valid JSON.
func dupIn(v []byte) string { return dupWhere(v, nil) }

// dupWhere is dupIn for the repeated names only accepts (nil: any).
func dupWhere(v []byte, only func(name []byte) bool) string {
	var fbuf [16]dupFrame
	var nbuf [32][]byte
	stack, names := fbuf[:0], nbuf[:0]
	wantName := false // the next string is a member name
	for i := 0; i < len(v); {
		switch v[i] {
		case '{':
			stack = append(stack, dupFrame{object: true, first: len(names)})
			wantName = true
			i++
		case '[':
			stack = append(stack, dupFrame{})
			i++
		case '}', ']':
			top := stack[len(stack)-1]
			if top.object {
				names = names[:top.first]
			}
			stack = stack[:len(stack)-1]
			i++
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				wantName = true
			} else {
				top.index++
			}
			i++
		case '"':
			end := jsonscan.Skip(v, i)
			if wantName {
				wantName = false
				k := memberName(v, i, end)
				top := &stack[len(stack)-1]
				if top.repeats(names[top.first:], k) && (only == nil || only(k)) {
					return dupPath(stack, k)
				}
				names = append(names, k)
				top.name = k
			}
			i = end
		default:
			i++
		}
	}
	return ""
}

// dupFrame is an object or array dupIn is in.
type dupFrame struct {
	object bool
	first  int    // object: where its names start in dupIn's list
	name   []byte // object: the current member's name
	index  int    // array: the current element's index
	// folded holds an object's names folded (foldName) once it has more
	// than a few: comparing each new name with all before it was
	// quadratic in the number of members.
	folded map[string]struct{}
}

// dupLinear is how many names an object's list is searched for before
// they go into a map.
const dupLinear = 16

// repeats reports whether k equals one of names, the object's names so
// far, ignoring case.
func (f *dupFrame) repeats(names [][]byte, k []byte) bool {
	if f.folded == nil && len(names) < dupLinear {
		return slices.ContainsFunc(names, func(s []byte) bool { return bytes.EqualFold(s, k) })
	}
	if f.folded == nil {
		f.folded = make(map[string]struct{}, 2*dupLinear)
		for _, s := range names {
			f.folded[foldName(s)] = struct{}{}
		}
	}
	fk := foldName(k)
	if _, ok := f.folded[fk]; ok {
		return true
	}
	f.folded[fk] = struct{}{}
	return false
}

// foldName maps a name to the least rune of each of its runes' case
// folding orbits (unicode.SimpleFold), so that foldName(a) == foldName(b)
// exactly when bytes.EqualFold(a, b): K, k and the Kelvin sign alike.
// Names here are valid UTF-8 (dupIn decoded any that was not).
func foldName(s []byte) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range string(s) {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// dupPath is the location of the repeated name k in the innermost of
// stack.
func dupPath(stack []dupFrame, k []byte) string {
	var b strings.Builder
	for _, f := range stack[:len(stack)-1] {
		if f.object {
			b.WriteString(".")
			b.Write(f.name)
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	b.WriteString(".")
	b.Write(k)
	return b.String()
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

// memberName is the name of the member whose quoted name is v[i:end], as
// encoding/json decodes it: the bytes between the quotes, unless escapes
// or invalid UTF-8 make it another string.
func memberName(v []byte, i, end int) []byte {
	k := v[i+1 : end-1]
	if bytes.IndexByte(k, '\\') >= 0 || !utf8.Valid(k) {
		s, _ := jsonscan.Unquote(v[i:end])
		k = []byte(s)
	}
	return k
}
