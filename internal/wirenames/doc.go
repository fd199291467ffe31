// Package wirenames holds the short strings MCP messages repeat on every
// call: method names, protocol versions, log levels, result types. The
// packages that read messages take them from here without allocating
// (jsonscan.Interned) instead of copying each out of every message.
//
// The list is a cache, not a definition: a string missing from it is read
// as before, only copied. Strings that cannot come up in a call (the
// content types, say, where a field is any string) cost a map lookup when
// they are no longer than the longest member.
package wirenames
