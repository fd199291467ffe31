package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/winbridge/winbridge/internal/jsonscan"

	"github.com/winbridge/winbridge/mcp"
)

// DefaultMaxListBytes is Options.MaxListBytes when unset.
const DefaultMaxListBytes = 64 << 20

// ErrListTooLarge is the error of a list (tools, resources, templates,
// prompts) whose pages together exceed Options.MaxListBytes.
var ErrListTooLarge = errors.New("client: list too large")

// maxPages stops a server whose cursors never end from looping a client
// forever, even with pages too small for MaxListBytes to stop it soon.
const maxPages = 10000

// listAll follows the cursors of a list method, collecting every page. A
// page is counted in bytes, and its items in the size of their structs,
// before it is decoded: a server whose cursors never end, or whose pages
// are each as large as a message may be, would otherwise make the client
// gather pages times the message size, and a page of empty items fifty
// times its bytes.
//
// A null among a page's items is dropped: a caller ranging over the list
// (the Manager naming its tools) would dereference it.
//
// The call's timeout bounds the whole list, every page sharing one
// deadline: bounding each page let a server that pages slowly hold the
// caller for pages times the timeout.
func listAll[R any, T any](ctx context.Context, c *Client, method string, items func(*R) ([]*T, string), opts []CallOption) ([]*T, error) {
	ctx, cancel, o := c.operation(ctx, opts)
	defer cancel()
	var all []*T
	cursor := ""
	// What an item costs decoded beyond its bytes: its struct, and its
	// pointer in the page's slice and in the list's.
	itemSize := int64(reflect.TypeFor[T]().Size()) + 16
	var total int64
	for range maxPages {
		var raw json.RawMessage
		if err := c.callWith(ctx, method, &mcp.PaginatedParams{Cursor: cursor}, &raw, o); err != nil {
			return nil, err
		}
		// Each item also counts the struct it becomes, before any is
		// made: an empty item is "{}" on the wire and some 150 bytes
		// decoded, so bytes alone let a list take fifty times the bound.
		total += int64(len(raw)) + pageItems(raw)*itemSize
		if total > c.maxListBytes() {
			return nil, fmt.Errorf("%s: %w: the pages and their items take more than %s bytes (Options.MaxListBytes)",
				method, ErrListTooLarge, strconv.FormatInt(c.maxListBytes(), 10))
		}
		var res R
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		page, next := items(&res)
		for _, item := range page {
			if item != nil {
				all = append(all, item)
			}
		}
		if next == "" {
			return all, nil
		}
		cursor = next
	}
	return nil, fmt.Errorf("%s: %w: more than %d pages", method, ErrListTooLarge, maxPages)
}

// pageItems counts the elements of a list result's top-level arrays: the
// items of the page (the result is valid JSON, as the transport checked).
func pageItems(raw json.RawMessage) int64 {
	var n int64
	_ = jsonscan.MembersBytes(raw, func(_, v []byte) bool {
		if len(v) > 0 && v[0] == '[' {
			_ = jsonscan.Elements(v, func([]byte) bool {
				n++
				return true
			})
		}
		return true
	})
	return n
}

func (c *Client) maxListBytes() int64 {
	if c.opts.MaxListBytes > 0 {
		return c.opts.MaxListBytes
	}
	return DefaultMaxListBytes
}
