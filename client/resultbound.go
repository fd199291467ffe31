package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// DefaultMaxResultMemory is Options.MaxResultMemory when unset: eight
// times the largest message the transports accept by default
// (transport.DefaultMaxMessageSize, 32 MiB).
const DefaultMaxResultMemory = 256 << 20

// ErrResultTooLarge is the error of a result that would take more than
// Options.MaxResultMemory once decoded.
var ErrResultTooLarge = errors.New("client: result too large to decode")

// What decoding one node of a result allocates at most, as encoding/json
// and the mcp package's decoders do it, whatever Go type the node becomes
// (a struct, a map, an any). The result's shape is all that is known here,
// not the type it becomes, so each is the largest of the cases; the
// test FuzzResultEstimate checks them against what decoding allocates.
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

// estimateDecoded is an upper bound of what decoding the result raw (valid
// JSON) into Go values allocates: each node charged the most it can cost,
// the bytes of each string twice (a string with escapes is decoded into a
// buffer, then copied), and those of keys many times more.
//
// Why by node and not by bytes: "{}" is two bytes and, decoded, a struct or
// a map of a hundred or more; an array of them took some thirty times its
// bytes, and a result within the 32 MiB message bound a gigabyte.
func estimateDecoded(raw []byte) int64 {
	n := jsonscan.Count(raw)
	return n.Objects*costObject + n.Members*costMember + n.Arrays*costArray +
		n.Elements*costElement + n.Strings*costString + n.Scalars*costScalar +
		2*n.StringBytes + costKeyByte*n.KeyBytes + costEscapedKeyByte*n.EscapedKeyBytes +
		costScalarByte*n.ScalarBytes
}

// checkResult is the transport's ConnOptions.CheckResult: it refuses a
// result whose estimate is over the bound before anything decodes it. It is
// one pass over the bytes, which allocates nothing.
//
// Why a bound in bytes of memory, and not a multiple of each result's own
// size: what a caller provisions is the memory a call may take; a multiple
// would refuse small results whose structs outweigh their bytes (as a short
// result's do) unless given a floor, and still let each large one take that
// multiple of 32 MiB. A result of text, the common large one, is estimated
// at about twice its bytes, so every message the transports accept by
// default passes; one of nested empty objects does not.
func (c *Client) checkResult(method string, raw json.RawMessage) error {
	limit := c.maxResultMemory()
	if limit < 0 {
		return nil
	}
	// Below limit/costObject bytes no estimate can reach it: a node costs
	// at most that per byte. Most results end here after a length test.
	if int64(len(raw)) <= limit/costObject {
		return nil
	}
	if est := estimateDecoded(raw); est > limit {
		return fmt.Errorf("%w: its %d bytes would take about %s bytes decoded, more than %s (Options.MaxResultMemory)",
			ErrResultTooLarge, len(raw), strconv.FormatInt(est, 10), strconv.FormatInt(limit, 10))
	}
	return nil
}

func (c *Client) maxResultMemory() int64 {
	switch {
	case c.opts.MaxResultMemory < 0:
		return -1
	case c.opts.MaxResultMemory == 0:
		return DefaultMaxResultMemory
	}
	return c.opts.MaxResultMemory
}
