package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/winbridge/winbridge/internal/decodecost"
)

// DefaultMaxResultMemory is Options.MaxResultMemory when unset: eight
// times the largest message the transports accept by default
// (transport.DefaultMaxMessageSize, 32 MiB).
const DefaultMaxResultMemory = 256 << 20

// ErrResultTooLarge is the error of a result that would take more than
// Options.MaxResultMemory once decoded.
var ErrResultTooLarge = errors.New("client: result too large to decode")

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
	// Below limit/decodecost.MaxPerByte bytes no estimate can reach the
	// bound, and Over does not scan: most results end after a length test.
	limit := c.maxResultMemory()
	if est, over := decodecost.Over(raw, limit); over {
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
