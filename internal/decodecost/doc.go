// Package decodecost estimates, from a JSON value's shape alone, the most
// that decoding it into Go values can allocate. The client bounds the
// results it decodes by it (client.Options.MaxResultMemory), the server
// the params of the requests it decodes (mcp.ServerOptions.MaxParamsMemory).
//
// Why a package of its own, and not part of jsonscan: jsonscan is a scanner
// of JSON syntax and knows nothing of what a value becomes; the costs here
// are a model of what encoding/json, jsonscan's decoders and the mcp types
// allocate, measured against those types (the tests import mcp, which
// imports jsonscan). Counting the nodes is jsonscan's part (Count), and
// stays there.
package decodecost
