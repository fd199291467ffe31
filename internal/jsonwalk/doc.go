// Package jsonwalk checks a JSON document decoded as any, naming the path
// of each value at fault, and collects every problem instead of stopping at
// the first: a configuration file is fixed in one round, not one error per
// run. client.ParseConfig and gateway.ParsePolicy share it; each keeps its
// own error type and schema.
package jsonwalk
