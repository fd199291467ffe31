package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// The auth/* scenarios: the suite's mock MCP server answers 401 and its
// mock authorization server runs the flow. The client runs the basic
// scenario (list the tools, call the first) over an oauth.Transport whose
// Config the scenario's context fills. The user's step of the
// authorization code grant is headless: the mock authorization endpoint
// redirects at once, so the client reads the code off the Location.

// clientMetadataURL is the client ID metadata document the suite expects
// a client to offer where the authorization server supports them.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// authContext is the union of the scenarios' MCP_CONFORMANCE_CONTEXT.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	ValidJWT         string `json:"valid_jwt"`
}

func authScenario(name string) scenario {
	return func(ctx context.Context, r *runner) error {
		var ac authContext
		if len(r.context) > 0 {
			if err := json.Unmarshal(r.context, &ac); err != nil {
				return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
			}
		}
		cfg := &oauth.Config{
			ClientName:        "winbridge-everything-client",
			ClientMetadataURL: clientMetadataURL,
			RedirectURL:       "http://localhost:3000/callback",
			UserAgent:         oauth.UserAgentFunc(headlessAuthorize),
			ClientID:          ac.ClientID,
			ClientSecret:      ac.ClientSecret,
			ClientIssuer:      ac.Issuer,
		}
		switch name {
		case "auth/client-credentials-jwt":
			key, err := oauth.ParsePrivateKey([]byte(ac.PrivateKeyPEM))
			if err != nil {
				return err
			}
			cfg.PrivateKey, cfg.Grant = key, oauth.ClientCredentials{}
		case "auth/client-credentials-basic":
			cfg.Grant = oauth.ClientCredentials{}
		case "auth/enterprise-managed-authorization":
			cfg.Grant = oauth.EnterpriseManaged{
				IDPTokenEndpoint: ac.IDPTokenEndpoint,
				IDPClientID:      ac.IDPClientID,
				IDToken:          func(context.Context) (string, error) { return ac.IDPIDToken, nil },
			}
		case "auth/wif-jwt-bearer":
			cfg.Grant = oauth.JWTBearer{Assertion: func(context.Context) (string, error) { return ac.ValidJWT, nil }}
		}
		if cfg.ClientIssuer == "" && cfg.Check() != nil {
			// The suite names no issuer for these scenarios, and the
			// Transport will not present credentials without one. The
			// harness trusts the server under test and takes the
			// authorization server its metadata names; an application must
			// not (the MCP server would choose where the secret goes).
			iss, err := serverIssuer(ctx, r.http, r.url)
			if err != nil {
				return fmt.Errorf("the authorization server of %s: %w", r.url, err)
			}
			cfg.ClientIssuer = iss
		}
		r.http = &http.Client{Transport: &oauth.Transport{Base: r.http.Transport, Config: cfg}}
		return basic(ctx, r)
	}
}

// headlessAuthorize follows the authorization URL without a browser: the
// mock authorization server approves at once and redirects, and the
// redirect's query is the answer.
func headlessAuthorize(ctx context.Context, authURL string) (url.Values, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, errors.New("authorization endpoint unreachable")
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode/100 != 3 || loc == "" {
		return nil, fmt.Errorf("authorization endpoint answered %s without a redirect", resp.Status)
	}
	u, err := url.Parse(loc)
	if err != nil || !strings.HasPrefix(loc, "http://localhost:3000/callback") {
		return nil, errors.New("authorization endpoint redirected elsewhere")
	}
	return u.Query(), nil
}

// serverIssuer is the first authorization server that the protected
// resource metadata of the MCP server at endpoint names: at the
// resource_metadata of the 401 an unauthorized request meets, else at
// the well-known locations.
func serverIssuer(ctx context.Context, c *http.Client, endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	var where []string
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{}`))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
		for _, ch := range oauth.ParseChallenges(resp.Header) {
			if m := ch.ResourceMetadata(); m != "" {
				where = append(where, m)
			}
		}
	}
	at := func(p string) string { return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}).String() }
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		where = append(where, at("/.well-known/oauth-protected-resource"+p))
	}
	where = append(where, at("/.well-known/oauth-protected-resource"))
	for _, m := range where {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m, nil)
		if err != nil {
			continue
		}
		resp, err := c.Do(req)
		if err != nil {
			continue
		}
		var prm oauth.ResourceMetadata
		err = json.NewDecoder(io.LimitReader(resp.Body, oauth.MaxResponseBytes)).Decode(&prm)
		resp.Body.Close()
		if err == nil && resp.StatusCode == http.StatusOK && len(prm.AuthorizationServers) > 0 {
			return prm.AuthorizationServers[0], nil
		}
	}
	return "", errors.New("no protected resource metadata names one")
}
