package jsonscan

import "bytes"

// Counts is what Count finds in a JSON value: how many nodes of each kind
// it holds at any depth. A decoder allocates per node (a struct, a map and
// its entries, a slice slot, a string), so these bound what decoding the
// value can cost better than its bytes do: "{}" is two bytes and a map or
// a struct of any size.
type Counts struct {
	Objects  int64 // objects, the value itself included
	Arrays   int64 // arrays, likewise
	Members  int64 // members of objects (each has a key)
	Elements int64 // elements of arrays
	Strings  int64 // strings that are values, not keys
	Scalars  int64 // numbers, true, false and null
	// StringBytes is the length of every string, keys included, with
	// its quotes and escapes: at least what it decodes into.
	StringBytes int64
	// KeyBytes is the part of StringBytes that is keys, and
	// EscapedKeyBytes the part of that in keys with an escape: a decoder
	// may look a key up, or decode it, once per field it seeks.
	KeyBytes, EscapedKeyBytes int64
	// ScalarBytes is the length of the numbers and literals: a long
	// number is parsed, and may be copied, by its digits.
	ScalarBytes int64
}

// Count counts the nodes of b, which must be valid JSON (see Valid). It is
// one pass that keeps no stack, so it costs the same at any depth: each
// member has one colon and each value is an element unless it is a
// member's value or the top-level value, so the elements are found by
// subtraction. A string is skipped as Skip skips it, a search for its
// closing quote.
func Count(b []byte) Counts {
	var c Counts
	var strs int64 // keys included
	var key []byte // the last string: a colon after it makes it a key
	for i := 0; i < len(b); {
		switch b[i] {
		case '{':
			c.Objects++
		case '[':
			c.Arrays++
		case ':':
			c.Members++
			c.KeyBytes += int64(len(key))
			if bytes.IndexByte(key, '\\') >= 0 {
				c.EscapedKeyBytes += int64(len(key))
			}
		case '"':
			end := skipString(b, i)
			strs++
			c.StringBytes += int64(end - i)
			key, i = b[i:end], end
			continue
		case ' ', '\t', '\r', '\n', ',', '}', ']':
		default:
			// A number or a literal: it ends at the next delimiter.
			c.Scalars++
			end := Skip(b, i)
			c.ScalarBytes += int64(end - i)
			i = end
			continue
		}
		i++
	}
	c.Strings = strs - c.Members
	if values := c.Objects + c.Arrays + c.Strings + c.Scalars; values > 0 {
		c.Elements = values - c.Members - 1
	}
	return c
}
