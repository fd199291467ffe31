package oauth

import (
	"fmt"
	"log/slog"
)

// Format implements fmt.Formatter: every verb prints the client's ID and
// issuer and says which secrets are set, never them. A Config holds the
// client's secret and private key, and printing a configuration with %+v
// is a common way to debug one.
func (c Config) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "oauth.Config{client_id: %s, issuer: %s, redirect: %s, client secret set: %t, private key set: %t}",
		c.ClientID, c.ClientIssuer, redactURL(c.RedirectURL), c.ClientSecret != "", c.PrivateKey != nil)
}

// LogValue implements slog.LogValuer, as Format.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("client_id", c.ClientID), slog.String("issuer", c.ClientIssuer),
		slog.Bool("client_secret", c.ClientSecret != ""), slog.Bool("private_key", c.PrivateKey != nil))
}

// Format implements fmt.Formatter: the client's secret at the identity
// provider is never printed.
func (g EnterpriseManaged) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "oauth.EnterpriseManaged{idp: %s, client_id: %s, client secret set: %t}",
		redactURL(g.IDPTokenEndpoint), g.IDPClientID, g.IDPClientSecret != "")
}

// LogValue implements slog.LogValuer, as Format.
func (g EnterpriseManaged) LogValue() slog.Value {
	return slog.GroupValue(slog.String("idp", redactURL(g.IDPTokenEndpoint)), slog.String("client_id", g.IDPClientID),
		slog.Bool("client_secret", g.IDPClientSecret != ""))
}
