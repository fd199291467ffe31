package oauth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// A client of a remote server that requires OAuth: the browser comes
// back to a loopback port, the credentials stay in a 0600 file.
func ExampleTransport() {
	ctx := context.Background()
	lb, err := oauth.ListenLoopback(0)
	if err != nil {
		log.Fatal(err)
	}
	defer lb.Close()
	lb.Show = func(u string) { fmt.Fprintln(os.Stderr, "Open in a browser:", u) }
	t := &oauth.Transport{Config: &oauth.Config{
		ClientName:  "my-app",
		RedirectURL: lb.RedirectURL(),
		UserAgent:   lb,
		Store:       &oauth.FileStore{Path: "tokens.json"},
	}}
	stream, err := mcphttp.NewStream(ctx, "https://mcp.example.com/mcp",
		&mcphttp.ClientOptions{Client: &http.Client{Transport: t}})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.Connect(ctx, stream, nil) // a 401 here runs the flow
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	fmt.Println(len(tools), err)
}

// A service that authorizes itself, without a user: the client
// credentials grant with a pre-registered client.
func ExampleClientCredentials() {
	t := &oauth.Transport{Config: &oauth.Config{
		ClientID:     "reporting-job",
		ClientSecret: os.Getenv("CLIENT_SECRET"),
		ClientIssuer: "https://auth.example.com", // its secret goes there only
		Grant:        oauth.ClientCredentials{},
	}}
	_ = &http.Client{Transport: t} // for mcphttp.ClientOptions.Client
}

// A server that requires OAuth: the metadata tells clients where to
// authorize, RequireAuth checks each request's token, and tools see who
// called.
func ExampleResourceMetadata() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		who := mcphttp.SessionAuth(req.Session).Subject
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: who}}}, nil, nil
	})
	const resource = "https://mcp.example.com/mcp"
	mux := http.NewServeMux()
	mux.Handle(mcphttp.ResourceMetadataPath(resource), mcphttp.ResourceMetadataHandler(&oauth.ResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"notes:read"},
	}))
	mux.Handle("/mcp", mcphttp.RequireAuth(mcphttp.AuthOptions{
		Verifier:            mcphttp.TokenVerifierFunc(verifyJWT), // signature, issuer, audience, expiry
		ResourceMetadataURL: "https://mcp.example.com" + mcphttp.ResourceMetadataPath(resource),
		Scopes:              []string{"notes:read"},
	}, mcphttp.NewHandler(srv, nil)))
	_ = &http.Server{Addr: ":8443", Handler: mux} // ListenAndServeTLS
}

// verifyJWT stands for the application's token check.
func verifyJWT(_ context.Context, token string) (*mcphttp.AuthInfo, error) {
	return nil, fmt.Errorf("%w: not implemented in the example", mcphttp.ErrInvalidToken)
}
