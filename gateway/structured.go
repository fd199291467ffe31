package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
)

// The parts of a tool result the facade forwards as the server wrote
// them. The rule: what the facade judges is what it forwards, in the
// form it forwards it, and that form reads one way only.
//
// structuredContent: package mcp decodes it into an any, numbers as
// float64, so 9007199254740993 would be judged, and forwarded, as
// 9007199254740992. The facade keeps the bytes the upstream sent
// (structuredMember), encodes them once as they will be forwarded
// (checkStructured), judges that encoding with numbers read exactly
// (decodeExact), and forwards the very bytes it judged. Blocks of
// unknown types, and sampling blocks (keepSamplingBlocks), are forwarded
// as received too, and checked to read one way (checkRawBlocks).

// structuredName is the member of a result that holds structured content.
var structuredName = []byte("structuredContent")

// structuredMember returns the raw value of the member of the result
// object raw that encoding/json decodes into
// mcp.CallToolResult.StructuredContent: the one whose name equals
// "structuredContent" ignoring case, as encoding/json matches names. A
// result with two such members is refused: encoding/json keeps the last,
// other parsers the first, and the facade would judge one while a client
// might read the other. raw must be valid JSON (it was decoded).
func structuredMember(raw []byte) ([]byte, error) {
	v, n, err := memberFold(raw, structuredName)
	switch {
	case err != nil:
		return nil, err
	case n > 1:
		return nil, errors.New("the server's result gives structuredContent more than once")
	}
	return v, nil
}

// memberFold returns the value of the last member of the object raw
// whose name equals name ignoring case (the one encoding/json decodes
// into the field of that name), and how many such members there are.
func memberFold(raw, name []byte) ([]byte, int, error) {
	var v []byte
	n := 0
	err := jsonscan.MembersBytes(raw, func(k, mv []byte) bool {
		if bytes.EqualFold(k, name) {
			v = mv
			n++
		}
		return true
	})
	if err != nil {
		return nil, 0, fmt.Errorf("the server's result is not an object: %w", err)
	}
	return v, n, nil
}

var contentName = []byte("content")

// keepSamplingBlocks replaces sampling's tool_use and tool_result
// blocks in res, a result decoded from raw, by the bytes the server sent
// for them (as mcp.UnknownContent, which is forwarded as it is): package
// mcp decodes their input and structuredContent with numbers as float64,
// and a tool result may not carry them at all, so the facade has nothing
// to judge in them and must not round what it forwards. Other results
// are left alone, at no cost.
func keepSamplingBlocks(res *mcp.CallToolResult, raw []byte) error {
	if !slices.ContainsFunc(res.Content, isSamplingBlock) {
		return nil
	}
	list, _, err := memberFold(raw, contentName)
	if err != nil {
		return err
	}
	var blocks [][]byte
	if err := jsonscan.Elements(list, func(b []byte) bool { blocks = append(blocks, b); return true }); err != nil || len(blocks) != len(res.Content) {
		return errors.New("the server's content list does not read the same twice")
	}
	for i, c := range res.Content {
		if isSamplingBlock(c) {
			res.Content[i] = &mcp.UnknownContent{Type: blockType(c), Raw: bytes.Clone(blocks[i])}
		}
	}
	return nil
}

func isSamplingBlock(c mcp.Content) bool {
	switch c.(type) {
	case *mcp.ToolUseContent, *mcp.ToolResultContent:
		return true
	}
	return false
}

func blockType(c mcp.Content) string {
	if _, ok := c.(*mcp.ToolUseContent); ok {
		return "tool_use"
	}
	return "tool_result"
}

// checkStructured checks res.StructuredContent (not nil) as step 9 of
// the pipeline does, and returns res with it as the bytes it judged,
// which are the bytes the client receives: encoding/json writes a
// json.RawMessage as it is, but for white space and HTML escapes, which
// the encoding here has already applied. res is not changed (it may be
// an in-process tool's own value). On a refusal it returns the code and
// the reason.
func checkStructured(res *mcp.CallToolResult, e *exposed, maxBytes int) (*mcp.CallToolResult, Code, error) {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, CodeUpstreamMalformed, fmt.Errorf("returned structured content that cannot be encoded: %v", cutUTF8(err.Error(), 256))
	}
	if len(b) > maxBytes {
		return nil, CodeResultTooLarge, fmt.Errorf("returned %d bytes of structured content; the cap is %d", len(b), maxBytes)
	}
	// A wire message is UTF-8 and the transport checked it; an
	// in-process tool's json.RawMessage need not be, and the facade
	// would judge its strings with U+FFFD where the bytes go out as sent.
	if !utf8.Valid(b) {
		return nil, CodeUpstreamMalformed, errors.New("returned structured content that is not valid UTF-8")
	}
	if d := dupIn(b); d != "" {
		return nil, CodeUpstreamMalformed, fmt.Errorf("returned structured content with member %s given twice (parsers disagree on which one counts)", placeOf(d))
	}
	if jsonscan.LoneSurrogate(b) {
		return nil, CodeUpstreamMalformed, errors.New("returned structured content that escapes half of a UTF-16 surrogate pair, which decoders read differently")
	}
	if got, d := e.outNames.alias(b); got != "" && e.output != nil && !res.IsError {
		// casealias.go: the facade checked another member than the one
		// a client that decodes into a struct reads.
		return nil, CodeOutputSchema, fmt.Errorf("returned structured content with member %q, which differs from the declared property %q only in case", got, d)
	}
	if e.output != nil && !res.IsError {
		v, big, err := decodeExact(b, "structuredContent member", e.outNear)
		switch {
		case errors.Is(err, errInexact):
			return nil, CodeOutputSchema, fmt.Errorf("returned structured content the facade cannot check exactly against its output schema: %w", err)
		case err != nil:
			return nil, CodeUpstreamMalformed, fmt.Errorf("returned structured content that does not decode: %v", cutUTF8(err.Error(), 256))
		case big != "" && !e.outBigExact:
			return nil, CodeOutputSchema, fmt.Errorf("returned structured content with member %s an integer of magnitude 2^53 or more, which the facade cannot check exactly against its output schema (it has multipleOf, or numbers a float64 does not hold)", big)
		}
		output, cost := e.output, e.outCost
		if e.outMul != nil {
			fix, err := e.outMul.check(b, "structuredContent member")
			if fix != nil {
				output, cost, err = e.outMul.exactSchema(fix, false)
			}
			switch {
			case errors.Is(err, errInexact):
				return nil, CodeOutputSchema, fmt.Errorf("returned structured content the facade cannot check exactly against its output schema: %w", err)
			case err != nil:
				return nil, CodeOutputSchema, fmt.Errorf("returned structured content that does not match its output schema: %w", err)
			}
		}
		if cost.tooCostly(v) {
			return nil, CodeOutputSchema, fmt.Errorf("returned structured content that would cost more than the facade allows to check against its output schema (%d units: the schema reaches itself from more than one place at a level and the content nests deep, or it is large where the schema is costly to apply)", maxValidationCost)
		}
		if err := output.Validate(v); err != nil {
			return nil, CodeOutputSchema, fmt.Errorf("returned structured content that does not match its output schema: %w", err)
		}
	}
	if rm, ok := res.StructuredContent.(json.RawMessage); ok && bytes.Equal(rm, b) {
		return res, CodeOK, nil
	}
	cp := *res
	cp.StructuredContent = json.RawMessage(b)
	return &cp, CodeOK, nil
}

// checkRawBlocks checks the content blocks of types the facade does not
// know (mcp.UnknownContent), which are forwarded as received: like
// structuredContent, each must read one way only. A member given twice
// ("type" above all: the facade reads the last, a client may read the
// first and take the block for text it never capped as text) or, for an
// in-process tool's block, bytes that are not UTF-8 or not JSON would
// let the client read what the facade did not.
func checkRawBlocks(blocks []mcp.Content) error {
	for i, c := range blocks {
		u, ok := c.(*mcp.UnknownContent)
		if !ok {
			continue
		}
		switch {
		case !utf8.Valid(u.Raw) || !jsonscan.Valid(u.Raw):
			return fmt.Errorf("content block %d is not valid JSON in UTF-8", i)
		case dupIn(u.Raw) != "":
			return fmt.Errorf("content block %d gives member %s twice (parsers disagree on which one counts)", i, placeOf(dupIn(u.Raw)))
		case jsonscan.NestsDeeper(u.Raw, maxRawBlockDepth):
			return fmt.Errorf("content block %d nests deeper than %d levels", i, maxRawBlockDepth)
		}
	}
	return nil
}

// maxRawBlockDepth bounds how deep a block forwarded as received may
// nest. upstreamRawBlock reads a tool_result block's whole text again for
// each tool_result inside it: 1.2 MB of them nested 5000 deep took 28 s
// of CPU. Blocks of any use nest a few levels.
const maxRawBlockDepth = 64
