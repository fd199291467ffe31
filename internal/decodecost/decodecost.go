package decodecost

import "github.com/winbridge/winbridge/internal/jsonscan"

// What decoding one node of a value allocates at most, as encoding/json
// and the mcp package's decoders do it, whatever Go type the node becomes
// (a struct, a map, an any). The value's shape is all that is known here,
// not the type it becomes, so each is the largest of the cases; the
// test FuzzEstimate checks them against what decoding allocates.
const (
	// An object: a struct of the protocol (up to some 150 bytes, doubled
	// by the growth of the slice it is an element of, or an allocation of
	// its own), or a map (its header, and the first group of slots its
	// first member takes).
	costObject = 320
	// A member: a map entry, its slots grown as the map grows, and its
	// key's string header. A field of a struct costs nothing more.
	costMember = 96
	// An array: the slice header, boxed when it becomes an any.
	costArray = 64
	// An element: its slot in a slice grown by doubling, which allocates
	// up to four times the final slice's slots in all.
	costElement = 80
	// A string value or a scalar: its header or number boxed in an any.
	costString = 32
	costScalar = 32
	// Each byte of a key, and more of a key with an escape. A decoder
	// seeks a struct's fields by walking the object's members once per
	// field, decoding a key with an escape each time; encoding/json
	// copies and folds a key it does not know; and a block the mcp fast
	// decoder gives up on is decoded again by encoding/json, layer by
	// layer. A long key nobody knows took 18 times its bytes, and one
	// with an escape over 40.
	costKeyByte        = 20
	costEscapedKeyByte = 28 // on top of costKeyByte
	// Each byte of a number: a long one is parsed, and its digits copied,
	// as a float64 or a json.Number is made of it.
	costScalarByte = 4
)

// MaxPerByte is the most any byte of a value can add to its Estimate, so
// that a value of at most limit/MaxPerByte bytes cannot be estimated over
// limit and need not be scanned. The densest shapes stay well under it:
// "{}," is three bytes for an object and an element (400), "0," two for a
// scalar and an element (116), a key byte with an escape 50; no node is
// shorter than one byte, nor charged more than an object. FuzzEstimate
// checks it.
const MaxPerByte = costObject

// Estimate is an upper bound of what decoding raw (valid JSON) into Go
// values allocates: each node charged the most it can cost, the bytes of
// each string twice (a string with escapes is decoded into a buffer, then
// copied), and those of keys many times more. It is one pass over raw,
// which allocates nothing.
//
// Why by node and not by bytes: "{}" is two bytes and, decoded, a struct or
// a map of a hundred or more; an array of them took some thirty times its
// bytes, and a message within the 32 MiB bound a gigabyte.
func Estimate(raw []byte) int64 {
	n := jsonscan.Count(raw)
	return n.Objects*costObject + n.Members*costMember + n.Arrays*costArray +
		n.Elements*costElement + n.Strings*costString + n.Scalars*costScalar +
		2*n.StringBytes + costKeyByte*n.KeyBytes + costEscapedKeyByte*n.EscapedKeyBytes +
		costScalarByte*n.ScalarBytes
}

// Over reports whether raw's Estimate exceeds limit, and the estimate when
// it was made. A negative limit is no bound. raw of at most
// limit/MaxPerByte bytes is not scanned, so that most messages cost a
// length test and no more.
func Over(raw []byte, limit int64) (estimate int64, over bool) {
	if limit < 0 || int64(len(raw)) <= limit/MaxPerByte {
		return 0, false
	}
	est := Estimate(raw)
	return est, est > limit
}
