// Command everything-client is the conformance client of
// @modelcontextprotocol/conformance: the suite starts it as
//
//	MCP_CONFORMANCE_SCENARIO=<scenario> everything-client <server-url>
//
// (with MCP_CONFORMANCE_PROTOCOL_VERSION and, for some scenarios,
// MCP_CONFORMANCE_CONTEXT), and it does what the scenario expects of a
// client over the Streamable HTTP transport:
//
//	conformance client --command "everything-client" --requirements 2026-07-28
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// scenario is what the client does for one scenario.
type scenario func(ctx context.Context, r *runner) error

var scenarios = map[string]scenario{
	"initialize":                          basic,
	"tools_call":                          basic,
	"tools-call":                          basic,
	"sse-retry":                           sseRetry,
	"elicitation-sep1034-client-defaults": elicitationDefaults,
	"elicitation-defaults":                elicitationDefaults,
	"request-metadata":                    requestMetadata,
	"sep-2322-client-request-state":       mrtrClient,
	"http-standard-headers":               standardHeaders,
	"http-custom-headers":                 customHeaders,
	"http-invalid-tool-headers":           invalidToolHeaders,
	"json-schema-ref-no-deref":            listOnly,
	"json-schema-2020-12-preservation":    schemaPreservation,
	"sep-2640-client-no-prefetch":         skillsListOnly,
	"sep-2640-client-verify-digest":       skillsLoad,
	"sep-2640-client-verify-size":         skillsLoad,
	"sep-2640-client-verify-frontmatter":  skillsLoad,
}

// authScenarios are the auth/* scenarios of the suite; each runs the
// basic scenario through an oauth.Transport (auth.go).
var authScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
	"auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/resource-mismatch",
	"auth/offline-access-scope", "auth/offline-access-not-supported", "auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer",
	"auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch",
	"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/enterprise-managed-authorization",
	"auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = authScenario(name)
	}
}

// runner holds what every scenario needs: the server's URL, the revision
// asked for, the scenario's context and the HTTP client (whose transport
// adds the Mcp-Param headers of SEP-2243).
type runner struct {
	url     string
	version string
	context json.RawMessage
	http    *http.Client
}

// connect opens a client session over Streamable HTTP.
func (r *runner) connect(ctx context.Context, opts client.Options) (*client.Client, error) {
	stream, err := mcphttp.NewStream(ctx, r.url, &mcphttp.ClientOptions{Client: r.http})
	if err != nil {
		return nil, err
	}
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = r.version
	}
	if opts.ClientInfo == nil {
		opts.ClientInfo = &mcp.Implementation{Name: "winbridge-everything-client", Version: "1.0.0"}
	}
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	return client.Connect(ctx, stream, &opts)
}

func main() {
	// The one flag; the conformance suite passes the URL alone.
	if len(os.Args) == 2 && (os.Args[1] == "-version" || os.Args[1] == "--version") {
		fmt.Println(cli.VersionString("everything-client"))
		return
	}
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if len(os.Args) != 2 || name == "" {
		fmt.Fprintln(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=<scenario> everything-client <server-url>")
		fmt.Fprintln(os.Stderr, "scenarios: "+strings.Join(names(), ", "))
		os.Exit(2)
	}
	run, ok := scenarios[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "everything-client: unknown scenario %q (known: %s)\n", name, strings.Join(names(), ", "))
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	r := &runner{
		url:     os.Args[1],
		version: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
		context: json.RawMessage(os.Getenv("MCP_CONFORMANCE_CONTEXT")),
		http:    &http.Client{},
	}
	if err := run(ctx, r); err != nil {
		slog.Error("everything-client", "scenario", name, "err", err)
		os.Exit(1)
	}
}

func names() []string {
	var out []string
	for n := range scenarios {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// isUnsupportedVersion reports whether err is -32022 naming version as
// supported.
func isUnsupportedVersion(err error, version string) bool {
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeUnsupportedProtocolVersion {
		return false
	}
	var data mcp.UnsupportedVersionData
	if json.Unmarshal(e.Data, &data) != nil {
		return false
	}
	for _, v := range data.Supported {
		if v == version {
			return true
		}
	}
	return false
}
