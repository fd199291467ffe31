// Package jsonscan walks the top level of a JSON object without decoding
// its values. The transport uses it to split JSON-RPC messages into members
// and the protocol types to read a discriminator such as "type", where a
// full decode would scan megabytes of payload only to find a few bytes.
//
// The input must already be valid JSON (json.Valid, or produced by
// encoding/json): the scanner trusts it and never reports syntax errors in
// values.
package jsonscan
