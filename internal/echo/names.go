package echo

import (
	"strings"
	"unicode"
)

// normalizeName folds case and drops '-' and '_', so that api_key, apiKey
// and X-Api-Key compare alike.
func normalizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// nameWords splits a name into its lower-case words at '-', '_', '.',
// spaces, digits and camelCase humps: GITHUB_PAT is [github pat],
// dbPass is [db pass], X-Access-Key is [x access key].
func nameWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 &&
			(unicode.IsLower(cur[len(cur)-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// secretParts are found anywhere in a normalized name: they are rarely
// part of a harmless word.
var secretParts = []string{
	"token", "secret", "passw", "passphrase", "credential", "cookie",
	"apikey", "accesskey", "secretkey", "privatekey", "signingkey", "encryptionkey",
	"signature", "bearer", "sessionid", "sessionkey", "jwt",
	// OAuth: a PKCE verifier, a client assertion, a DPoP proof.
	"verifier", "assertion", "dpop",
}

// secretWords are secrets only as whole words of a name: "key" but not
// "monkey", "pass" but not "compass", "pat" but not "path".
var secretWords = map[string]bool{
	"auth": true, "pass": true, "pwd": true, "pw": true, "key": true, "keys": true,
	"pat": true, "otp": true, "session": true, "sid": true,
	"cred": true, "creds": true, "private": true, "sig": true, "dsn": true,
	"authorization": true, "authentication": true,
}

// publicNames are protocol bookkeeping that looks like a secret by name.
var publicNames = map[string]bool{
	"progresstoken": true, "maxtokens": true, "keyword": true, "keywords": true,
}

// Sensitive reports whether a header, JSON member, environment variable
// or flag named name holds a secret. Names are compared without case,
// '-', '_' and '.'. It matches:
//   - the credential headers: Authorization, Proxy-Authorization,
//     Authentication, Cookie, Set-Cookie, X-Api-Key, X-Access-Key,
//     Mcp-Session-Id;
//   - anything containing token, secret, passw(ord), passphrase,
//     credential, cookie, apikey, accesskey, privatekey, signature,
//     bearer, sessionid, jwt, or auth (but not author, as in coauthor);
//   - anything with a word pass, pwd, pw, key, pat, otp, session, sid,
//     cred, private, sig or dsn (DB_PASS, GITHUB_PAT, AWS_ACCESS_KEY_ID);
//   - the names given in EchoOptions.MaskHeaders and MaskFields.
//
// progressToken and maxTokens are protocol bookkeeping and stay visible.
func (e *Echo) Sensitive(name string) bool {
	n := normalizeName(name)
	if n == "" || publicNames[n] {
		return false
	}
	if e != nil && e.extra[n] {
		return true
	}
	for _, s := range secretParts {
		if strings.Contains(n, s) {
			return true
		}
	}
	if strings.Contains(n, "auth") && !(strings.Contains(n, "author") && !strings.Contains(n, "authoriz")) {
		return true
	}
	for _, w := range nameWords(name) {
		if secretWords[w] {
			return true
		}
	}
	return false
}

// containerWords end the names of members whose values are all secrets,
// whatever their own names: a program's environment and a request's
// headers (env, environment, headers, requestHeaders, extra_headers).
var containerWords = map[string]bool{
	"env": true, "environ": true, "environment": true, "envs": true,
	"headers": true, "header": true,
}

// maskAllUnder reports whether every value under a member named name is
// masked: its last word is env or headers, or it names environment
// variables (envVars, environmentVariables).
func maskAllUnder(name string) bool {
	n := normalizeName(name)
	if strings.HasSuffix(n, "envvars") || strings.HasSuffix(n, "environmentvariables") {
		return true
	}
	w := nameWords(name)
	return len(w) > 0 && containerWords[w[len(w)-1]]
}

// namingKeys name the member that says what its object holds:
// {"name":"DB_PASSWORD","value":"..."}, {"header":"X-Api-Key","value":...}.
var namingKeys = map[string]bool{
	"name": true, "key": true, "header": true, "field": true, "variable": true,
	"var": true, "param": true, "parameter": true, "headername": true, "envname": true,
}
