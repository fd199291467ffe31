package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	bigpkg "math/big"
	"strconv"
	"strings"
)

// jsonschema-go reads a schema's numbers as float64 and compares an
// instance's number with them exactly (as big.Rat): an int64 or uint64
// as itself, a fraction as the float64 decodeExact gives it. The answer
// is the one the literals mean unless the two read as the same float64:
// rounding keeps order, so numbers whose float64 values differ compare
// as their literals do. When they read alike but are not equal
// (0.10000000000000000001 against "maximum": 0.1; 0.5 against
// "minimum": 0.50000000000000000001), the float64 comparison may be
// wrong, so the facade compares the literals exactly (big.Rat) and
// refuses the number when the validator's answer could differ. Such a
// number differs from a number of the schema only past float64's
// precision: no ordinary value is refused.

// schemaNumber is a number written in a schema.
type schemaNumber struct {
	lit string
	r   *bigpkg.Rat // its exact value; nil when not read exactly
}

// schemaNumbers are a schema's numbers by the float64 they read as; nil
// when it has none.
type schemaNumbers map[float64][]schemaNumber

// numbersOf returns the numbers written in schema, under any keyword:
// minimum, maximum, their exclusive forms, const and enum are those the
// validator compares with, and the others cost only a look-up. A number
// too long to read exactly (maxExactDigits), or too small for float64
// (1e-400), is kept with no exact value: an instance that reads as the
// same float64 is refused.
func numbersOf(schema []byte) schemaNumbers {
	var out schemaNumbers
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return out // io.EOF, or a schema that does not compile anyway
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			continue // ±Inf: jsonschema-go does not compile the schema
		}
		sn := schemaNumber{lit: string(n)}
		if r, ok := exactLiteral(string(n), f); ok {
			sn.r = r
		}
		if out == nil {
			out = schemaNumbers{}
		}
		out[f] = append(out[f], sn)
	}
}

// exactLiteral is the exact value of the number literal s, which reads
// as the float64 f, or false when it is not read exactly: longer than
// maxExactDigits (that costs its square), or zero as float64 but not
// zero (1e-99999999 would cost a 10^99999999).
func exactLiteral(s string, f float64) (*bigpkg.Rat, bool) {
	if f == 0 {
		mant, _, _ := strings.Cut(strings.ToLower(s), "e")
		if strings.ContainsAny(mant, "123456789") {
			return nil, false
		}
		return new(bigpkg.Rat), true
	}
	if len(s) > maxExactDigits {
		return nil, false
	}
	return new(bigpkg.Rat).SetString(s)
}

// judgeable returns an error wrapping errInexact when the validator,
// given inst (exactNumber's reading of the literal s), could answer
// otherwise than the literals mean against a number of the schema.
func (sn schemaNumbers) judgeable(s string, inst any) error {
	var key float64
	switch v := inst.(type) {
	case int64:
		key = float64(v)
	case uint64:
		key = float64(v)
	case float64:
		key = v
	default:
		return nil
	}
	list, found := sn[key]
	if !found {
		return nil
	}
	exact, ok := exactLiteral(s, key)
	if !ok {
		return fmt.Errorf("%w: %s is too close to the schema's %s for the facade to read it exactly", errInexact, shortNumber(s), shortNumber(list[0].lit))
	}
	seen := new(bigpkg.Rat) // what the validator compares: inst
	switch v := inst.(type) {
	case int64:
		seen.SetInt64(v)
	case uint64:
		seen.SetUint64(v)
	case float64:
		seen.SetFloat64(v)
	}
	read := new(bigpkg.Rat).SetFloat64(key) // the schema's number as the validator reads it
	for _, n := range list {
		if n.r == nil || seen.Cmp(read) != exact.Cmp(n.r) {
			return fmt.Errorf("%w: %s and the schema's %s read as the same float64, and the facade's validator would not compare them as written", errInexact, shortNumber(s), shortNumber(n.lit))
		}
	}
	return nil
}
