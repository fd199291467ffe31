package mcp

// SchemaForType lets the fuzz tests infer schemas for types built at run
// time.
var SchemaForType = schemaForType
