package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/winbridge/winbridge/internal/urlshow"
)

// MaxResponseBytes bounds every body the client reads from an
// authorization server or a metadata endpoint.
const MaxResponseBytes = 1 << 20

// ResourceMetadata is an OAuth 2.0 protected resource metadata document
// (RFC 9728 §2).
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// ServerMetadata is an authorization server metadata document (RFC 8414
// §2, with the OpenID Connect discovery and MCP members the flow uses).
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
	DPoPSigningAlgValuesSupported              []string `json:"dpop_signing_alg_values_supported,omitempty"`

	// fallback is set when no document was found and the endpoints are
	// the 2025-03-26 defaults at the server's origin.
	fallback bool
}

// ErrResourceMismatch matches the error of a protected resource metadata
// document whose resource is not the server the client is talking to
// (RFC 9728 §3.3): the client refuses to authorize for it.
var ErrResourceMismatch = errors.New("oauth: protected resource metadata names another resource")

// ErrInsecureResource matches the error of a request that needs
// authorization from an MCP server that is plain http on a host that is
// not loopback: a token sent there would travel in clear, so the client
// neither authorizes for it nor sends one (Config.InsecureHTTP allows it).
var ErrInsecureResource = errors.New("oauth: the resource is plain http on a host that is not loopback; a token would travel in clear")

// ErrIssuerMismatch matches the error of authorization server metadata
// whose issuer differs from the issuer it was fetched for (RFC 8414 §3.3),
// and of an authorization response whose iss differs (RFC 9207).
var ErrIssuerMismatch = errors.New("oauth: issuer mismatch")

// ErrPKCEUnsupported is returned when the authorization server's metadata
// does not list S256 in code_challenge_methods_supported: the MCP
// authorization specification forbids proceeding without PKCE.
var ErrPKCEUnsupported = errors.New("oauth: authorization server does not support PKCE S256")

// getJSON fetches u and decodes its JSON body into v. found is false for
// a 4xx answer (the document is not there), which is not an error.
// Redirects are followed only where u itself could be fetched from (see
// secureRedirects).
func getJSON(ctx context.Context, c *http.Client, u string, v any, rc reach) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, urlshow.Error(err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := secureRedirects(c, rc).Do(req)
	if err != nil {
		return false, urlshow.Error(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBytes))
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("GET %s: %s", urlshow.String(u), resp.Status)
	}
	body, err := readLimited(resp.Body)
	if err != nil {
		return false, fmt.Errorf("GET %s: %w", urlshow.String(u), err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("GET %s: %w", urlshow.String(u), err)
	}
	return true, nil
}

// secureRedirects returns c, whatever its own policy, refusing a redirect
// to a URL that rc refuses or (unless Config.InsecureHTTP) from https down
// to http. The URLs
// come from the MCP server (resource_metadata) or an authorization server
// it named: without this a redirect would take the client's GET to plain
// http anywhere (a cloud metadata address, a service on the network) that
// the checks on the URL itself keep it from, and a 404 there would end
// discovery with the fallback endpoints.
func secureRedirects(c *http.Client, rc reach) *http.Client {
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !rc.ok(req.URL.String()) || (!rc.insecure && strings.EqualFold(via[0].URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https")) {
			return fmt.Errorf("oauth: %s redirects to %s, which is not an https (or loopback http) URL at least as secure", redactURL(via[len(via)-1].URL.String()), redactURL(req.URL.String()))
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 { // net/http's own limit
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	bounded(&cc)
	return &cc
}

func readLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxResponseBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxResponseBytes {
		return nil, fmt.Errorf("response larger than %d bytes", MaxResponseBytes)
	}
	return b, nil
}

// redactURL drops the query, fragment and user info of a URL for
// messages: an authorization URL's query or a redirect's carries state
// and codes. It keeps the path, for the authorization server's endpoints,
// which its metadata publishes and which carry no secret; a URL of the
// MCP server, or made from its path, goes through urlshow instead (a
// key may be in the path).
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(invalid URL)"
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.User = "", "", "", nil
	return u.String()
}

// resourceMetadataURLs lists where RFC 9728 §3.1 puts the metadata of the
// resource at server: the path-specific location, then the root one.
func resourceMetadataURLs(server *url.URL) []string {
	at := func(p string) string {
		u := url.URL{Scheme: server.Scheme, Host: server.Host, Path: p}
		return u.String()
	}
	var out []string
	if p := strings.TrimSuffix(server.Path, "/"); p != "" {
		out = append(out, at("/.well-known/oauth-protected-resource"+p))
	}
	return append(out, at("/.well-known/oauth-protected-resource"))
}

// discoverResource fetches the protected resource metadata of server:
// from hint (a challenge's resource_metadata) if given, else the
// well-known locations. It returns nil, nil when there is none (a
// 2025-03-26 server), and ErrResourceMismatch when the document's
// resource is not server.
func discoverResource(ctx context.Context, c *http.Client, server *url.URL, hint string, rc reach) (*ResourceMetadata, error) {
	urls := resourceMetadataURLs(server)
	if hint != "" {
		h, err := url.Parse(hint)
		sameOrigin := err == nil && strings.EqualFold(h.Scheme, server.Scheme) && strings.EqualFold(hostPort(h), hostPort(server))
		if !sameOrigin && !rc.ok(hint) {
			return nil, fmt.Errorf("oauth: resource_metadata %q is neither on the server's origin nor an https URL", redactURL(hint))
		}
		urls = []string{hint}
	}
	for _, u := range urls {
		var m ResourceMetadata
		found, err := getJSON(ctx, c, u, &m, rc)
		if err != nil {
			return nil, fmt.Errorf("oauth: protected resource metadata: %w", err)
		}
		if !found {
			continue
		}
		if m.Resource == "" {
			return nil, fmt.Errorf("oauth: protected resource metadata at %s has no resource", urlshow.String(u))
		}
		if !resourceCovers(m.Resource, server) {
			return nil, fmt.Errorf("%w: %s is not %s", ErrResourceMismatch, urlshow.String(m.Resource), urlshow.URL(server))
		}
		return &m, nil
	}
	return nil, nil
}

// resourceCovers reports whether the resource identifier resource names
// server: same scheme and host (case-insensitive, RFC 3986 §6.2.2.1), and
// server's path equal to resource's or below it on a segment boundary.
func resourceCovers(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || r.Host == "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(hostPort(r), hostPort(server)) {
		return false
	}
	rp := strings.TrimSuffix(r.Path, "/")
	sp := strings.TrimSuffix(server.Path, "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// hostPort is the host with its scheme's default port made explicit.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Host + ":443"
	case "http":
		return u.Host + ":80"
	}
	return u.Host
}

// serverMetadataURLs lists where an issuer's metadata may be (MCP
// authorization, "Authorization Server Metadata Discovery"): with a path,
// RFC 8414's inserted form, OpenID's inserted form, then OpenID's
// appended form; without one, the two well-known documents at the root.
func serverMetadataURLs(issuer *url.URL) []string {
	at := func(p string) string {
		u := url.URL{Scheme: issuer.Scheme, Host: issuer.Host, Path: p}
		return u.String()
	}
	p := strings.TrimSuffix(issuer.Path, "/")
	if p == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{
		at("/.well-known/oauth-authorization-server" + p),
		at("/.well-known/openid-configuration" + p),
		at(p + "/.well-known/openid-configuration"),
	}
}

// discoverServer fetches the metadata of the authorization server issuer.
// The document's issuer must be issuer exactly (RFC 8414 §3.3): metadata
// naming another is refused, not used. With no document at all, the
// 2025-03-26 default endpoints at the issuer's origin stand in.
func discoverServer(ctx context.Context, c *http.Client, issuer string, rc reach) (*ServerMetadata, error) {
	iu, err := url.Parse(issuer)
	if err != nil || !rc.ok(issuer) || iu.RawQuery != "" || iu.Fragment != "" {
		return nil, fmt.Errorf("oauth: authorization server %q is not an https (or loopback http) URL without query or fragment", redactURL(issuer))
	}
	for _, u := range serverMetadataURLs(iu) {
		var m ServerMetadata
		found, err := getJSON(ctx, c, u, &m, rc)
		if err != nil {
			return nil, fmt.Errorf("oauth: authorization server metadata: %w", err)
		}
		if !found {
			continue
		}
		if m.Issuer != issuer {
			return nil, fmt.Errorf("%w: metadata at %s names issuer %q, not %q", ErrIssuerMismatch, redactURL(u), redactURL(m.Issuer), issuer)
		}
		for _, e := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
			if e != "" && !rc.ok(e) {
				return nil, fmt.Errorf("oauth: authorization server metadata at %s: endpoint %q is not an https (or loopback http) URL", redactURL(u), redactURL(e))
			}
		}
		return &m, nil
	}
	at := func(p string) string { u := url.URL{Scheme: iu.Scheme, Host: iu.Host, Path: p}; return u.String() }
	return &ServerMetadata{
		Issuer:                issuer,
		AuthorizationEndpoint: at("/authorize"),
		TokenEndpoint:         at("/token"),
		RegistrationEndpoint:  at("/register"),
		fallback:              true,
	}, nil
}

// secureURL reports whether s may carry credentials: an absolute https
// URL, or http to a loopback host (OAuth 2.1 §1.5 and §8.4.2: only a
// loopback redirect may be plain http), or any http with insecure
// (Config.InsecureHTTP).
func secureURL(s string, insecure bool) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		return insecure || isLoopback(u.Hostname())
	}
	return false
}

// reach is which URLs the flow for one MCP server may fetch from and
// post to. Plain http to loopback is for a server on loopback itself (a
// development setup): one elsewhere that names http://127.0.0.1:port as
// its authorization server or metadata would have the client send GETs,
// registrations and token requests (the client's secret with them) to
// whatever listens on that port of the user's machine.
type reach struct {
	insecure  bool // Config.InsecureHTTP: any http
	localHTTP bool // the MCP server is on loopback: loopback http too
}

func reachFor(server *url.URL, insecure bool) reach {
	return reach{insecure: insecure, localHTTP: isLoopback(server.Hostname())}
}

func (rc reach) ok(s string) bool {
	if !secureURL(s, rc.insecure) {
		return false
	}
	u, _ := url.Parse(s) // secureURL parsed it
	return rc.insecure || rc.localHTTP || strings.EqualFold(u.Scheme, "https")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// supportsS256 reports whether PKCE S256 may be used. The 2025-03-26
// fallback endpoints have no document to ask, and PKCE is sent anyway.
func (m *ServerMetadata) supportsS256() bool {
	return m.fallback || slices.Contains(m.CodeChallengeMethodsSupported, "S256")
}
