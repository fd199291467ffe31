// Command gosdk-server serves the benchmark workload with the official Go
// SDK over stdio (mcp.StdioTransport), with default server options.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/winbridge/winbridge/bench/internal/servers/gosdksrv"
)

func main() {
	if err := gosdksrv.New().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
