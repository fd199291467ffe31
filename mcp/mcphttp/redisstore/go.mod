module github.com/winbridge/winbridge/mcp/mcphttp/redisstore

go 1.26.0

// The library it extends; in this repository, the checkout itself.
replace github.com/winbridge/winbridge => ../../../

require (
	github.com/redis/go-redis/v9 v9.23.0
	github.com/winbridge/winbridge v0.0.0-00010101000000-000000000000
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/sourcegraph/jsonrpc2 v0.2.3 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
