package redisstore_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/redisstore"
)

// One replica of a server that runs as several behind a load balancer:
// every replica opens the same Redis and hands its stores to its Server
// (the bus and the requestState keyring) and to its Handler (sessions,
// stream events and the relay). Any replica can then serve any request.
//
// It needs a Redis to run, so it is compiled but not run as a test; the
// package's tests run the same wiring against a redis-server of their own.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := redisstore.Open(ctx, os.Getenv("REDIS_URL"), &redisstore.Options{Prefix: "adder:"})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	so := &mcp.ServerOptions{}
	st.ServerOptions(so)
	srv := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, so)

	// Behind a load balancer the Host header is the service's name, not
	// loopback, which is all the Handler accepts by default.
	ho := &mcphttp.HandlerOptions{AllowedHosts: []string{"mcp.example.com"}}
	st.HandlerOptions(ho)
	h := mcphttp.NewHandler(srv, ho)

	hs := &http.Server{Addr: ":8080", Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
