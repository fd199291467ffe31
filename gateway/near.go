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

// schemaNumbers are a schema's numbers by the float64 they read as;
// nil when it has none. Of the numbers that read as one float64 only the
// least and the greatest matter (judgeable), so a schema that repeats a
// number costs a call nothing more.
type schemaNumbers map[float64]*numberRange

// numberRange is the least and greatest exact value of the numbers that
// read as one float64, and their literals, for refusals to quote.
type numberRange struct {
	lo, hi       *bigpkg.Rat
	loLit, hiLit string
	unread       string // a literal not read exactly, if any
}

// numbersOf returns the numbers written in schema, under any keyword:
// minimum, maximum, their exclusive forms, const and enum are those the
// validator compares with, and the others cost only a look-up. A number
// too long to read exactly (maxExactDigits), or too small for float64
// (1e-400), makes a number of a call that reads as the same float64 be
// refused.
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
		if out == nil {
			out = schemaNumbers{}
		}
		nr := out[f]
		if nr == nil {
			nr = &numberRange{}
			out[f] = nr
		}
		r, ok := exactLiteral(string(n), f)
		switch {
		case !ok:
			nr.unread = string(n)
		case nr.lo == nil:
			nr.lo, nr.hi, nr.loLit, nr.hiLit = r, r, string(n), string(n)
		case r.Cmp(nr.lo) < 0:
			nr.lo, nr.loLit = r, string(n)
		case r.Cmp(nr.hi) > 0:
			nr.hi, nr.hiLit = r, string(n)
		}
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
// otherwise than the literals mean against a number of the schema that
// reads as the same float64. The validator compares inst with that
// float64, read; the literals compare s with each such number. They
// agree for all of them when s is above the greatest (inst above read),
// below the least (inst below), or equal to all (inst equal).
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
	nr := sn[key]
	if nr == nil {
		return nil
	}
	if nr.unread != "" {
		return fmt.Errorf("%w: %s reads as the same float64 as the schema's %s, which the facade does not read exactly", errInexact, shortNumber(s), shortNumber(nr.unread))
	}
	exact, ok := exactLiteral(s, key)
	if !ok {
		return fmt.Errorf("%w: %s is too close to the schema's %s for the facade to read it exactly", errInexact, shortNumber(s), shortNumber(nr.loLit))
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
	read := new(bigpkg.Rat).SetFloat64(key)
	var agree bool
	other := nr.loLit
	switch seen.Cmp(read) {
	case 1:
		agree, other = exact.Cmp(nr.hi) > 0, nr.hiLit
	case -1:
		agree = exact.Cmp(nr.lo) < 0
	default:
		agree = exact.Cmp(nr.lo) == 0 && exact.Cmp(nr.hi) == 0
		if exact.Cmp(nr.lo) == 0 {
			other = nr.hiLit
		}
	}
	if !agree {
		return fmt.Errorf("%w: %s and the schema's %s read as the same float64, and the facade's validator would not compare them as written", errInexact, shortNumber(s), shortNumber(other))
	}
	return nil
}
