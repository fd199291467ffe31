package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/winbridge/winbridge/internal/urlshow"
)

// ErrNoClient is returned when the client has no way to identify itself
// to the authorization server: no pre-registered ID for it, no client ID
// metadata document it accepts, no registration endpoint.
var ErrNoClient = errors.New("oauth: no client registration possible")

// ensureClient settles the client's identity at the authorization
// server, in the order of the MCP authorization specification:
// pre-registered credentials, a client ID metadata document, dynamic
// registration. Credentials of another authorization server are never
// reused (SEP-2352): a change of issuer drops them.
func (f *flow) ensureClient(ctx context.Context) error {
	c := f.creds
	if c.Issuer != f.as.Issuer {
		f.log.DebugContext(ctx, "oauth: authorization server changed; dropping its client registration", "from", c.Issuer, "to", f.as.Issuer)
		*c = Credentials{Issuer: f.as.Issuer, Scope: c.Scope}
	}
	if c.ClientID != "" {
		return nil
	}
	cfg := f.cfg
	if cfg.ClientID != "" && (cfg.ClientIssuer == "" || cfg.ClientIssuer == f.as.Issuer) {
		c.ClientID, c.ClientSecret = cfg.ClientID, cfg.ClientSecret
		return nil
	}
	if cfg.ClientMetadataURL != "" && f.as.ClientIDMetadataDocumentSupported {
		c.ClientID, c.AuthMethod = cfg.ClientMetadataURL, AuthNone
		if cfg.PrivateKey != nil {
			c.AuthMethod = AuthPrivateKeyJWT
		}
		return nil
	}
	if f.as.RegistrationEndpoint == "" {
		return fmt.Errorf("%w: %s has no registration endpoint and Config names no client for it", ErrNoClient, f.as.Issuer)
	}
	return f.register(ctx)
}

// registration is the client metadata of RFC 7591 §2 the flow sends.
type registration struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

type registrationResponse struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	Error                   string `json:"error"`
	ErrorDescription        string `json:"error_description"`
}

// register performs dynamic client registration (RFC 7591). It asks for
// no client secret when the server accepts public clients: a native
// application cannot keep one.
func (f *flow) register(ctx context.Context) error {
	method := AuthClientSecretBasic
	switch s := f.as.TokenEndpointAuthMethodsSupported; {
	case len(s) == 0, slices.Contains(s, AuthNone):
		method = AuthNone
	case slices.Contains(s, AuthClientSecretBasic):
	case slices.Contains(s, AuthClientSecretPost):
		method = AuthClientSecretPost
	}
	name := f.cfg.ClientName
	if name == "" {
		name = "winbridge"
	}
	reg := registration{
		ClientName:              name,
		RedirectURIs:            []string{f.cfg.RedirectURL},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: method,
		ApplicationType:         "native",
	}
	// OpenID registration's application_type: native for loopback or
	// custom-scheme redirects, web for an https one.
	if u, err := url.Parse(f.cfg.RedirectURL); err == nil && u.Scheme == "https" && !isLoopback(u.Hostname()) {
		reg.ApplicationType = "web"
	}
	if f.cfg.RedirectURL == "" {
		reg.RedirectURIs = []string{}
	}
	body, err := json.Marshal(reg)
	if err != nil {
		return err
	}
	endpoint := redactURL(f.as.RegistrationEndpoint)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := noRedirects(f.hc).Do(req)
	if err != nil {
		return fmt.Errorf("oauth: registration: %w", urlshow.Error(err))
	}
	defer resp.Body.Close()
	raw, err := readLimited(resp.Body)
	if err != nil {
		return fmt.Errorf("oauth: registration at %s: %w", endpoint, err)
	}
	var rr registrationResponse
	jerr := json.Unmarshal(raw, &rr)
	if resp.StatusCode/100 != 2 {
		return &TokenError{Endpoint: endpoint, Status: resp.StatusCode, Code: cut(rr.Error, 64), Description: cut(rr.ErrorDescription, 200)}
	}
	if jerr != nil || rr.ClientID == "" {
		return fmt.Errorf("oauth: registration at %s: response has no client_id", endpoint)
	}
	c := f.creds
	c.ClientID, c.ClientSecret, c.AuthMethod = rr.ClientID, rr.ClientSecret, rr.TokenEndpointAuthMethod
	f.log.DebugContext(ctx, "oauth: registered client", "endpoint", endpoint, "client_id", rr.ClientID, "auth_method", rr.TokenEndpointAuthMethod)
	return nil
}
