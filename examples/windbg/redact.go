package main

import (
	"sort"
	"strings"
)

// masked replaces a secret wherever the server shows a setting.
const masked = "***"

// redactSpec masks the secrets of a connection spec, such as cdb's
// -remote tcp:server=host,port=5005,password=pw, before it is shown
// anywhere: -help, logs, errors, the tool description and the initialize
// instructions. It masks the value of every key=value option whose key
// names a secret (password, pwd, pass, secret, token, key, credential,
// auth), and the password of a URL's user info (scheme://user:pw@host),
// which symbol paths may carry. A value that holds a comma runs on to
// the next option with '=', so no piece of a password is shown as an
// option of its own. Everything else stays readable.
func redactSpec(s string) string {
	out, _ := redact(s)
	return out
}

// redact returns s redacted as redactSpec does, and the secrets it
// masked.
func redact(s string) (string, []string) {
	s, secrets := redactUserinfo(s)
	if !strings.Contains(s, "=") {
		return s, secrets
	}
	parts := strings.Split(s, ",")
	secret := false
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			if secret {
				secrets[len(secrets)-1] += "," + p
				parts[i] = masked
			}
			continue
		}
		// The first option follows the transport: tcp:server=...
		name := k
		if j := strings.LastIndexAny(name, ":*"); j >= 0 {
			name = name[j+1:]
		}
		secret = secretKey(name)
		if secret {
			secrets = append(secrets, v)
			parts[i] = k + "=" + masked
		}
	}
	// Drop repeated masks left by a value that held commas.
	out := parts[:0]
	for i, p := range parts {
		if p == masked && i > 0 && strings.HasSuffix(parts[i-1], masked) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ","), secrets
}

// secretKey reports whether an option's key names a secret.
func secretKey(k string) bool {
	k = strings.ToLower(strings.TrimSpace(k))
	for _, w := range []string{"pass", "pwd", "secret", "token", "key", "cred", "auth"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// redactUserinfo masks the password of each scheme://user:password@host
// in s, and returns the passwords.
func redactUserinfo(s string) (string, []string) {
	var b strings.Builder
	var secrets []string
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String(), secrets
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/?#* \t")
		if end < 0 {
			end = len(s)
		}
		at := strings.LastIndexByte(s[:end], '@')
		if at < 0 {
			continue
		}
		if c := strings.IndexByte(s[:at], ':'); c >= 0 {
			secrets = append(secrets, s[c+1:at])
			b.WriteString(s[:c+1] + masked)
			s = s[at:]
		}
	}
}

// redactArgv masks the secrets of a command line before it is logged.
func redactArgv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = redactSpec(a)
	}
	return out
}

// scrubber returns a function that masks, in any text, the secrets of
// the given settings: cdb prints its -remote spec in its banner
// ("Connected to server with '...'"), and a command's output may quote it
// again, so what cdb prints is scrubbed before it is logged or returned.
// Secrets shorter than 4 bytes are masked in the settings only: replacing
// every "ab" in a debugger's output would garble it, and would not hide
// much either.
//
// The longest secrets come first: where two match at one place, a
// strings.Replacer takes the pair given first, so a password that begins
// another secret would mask only the start of it and show its tail.
func scrubber(settings ...string) func(string) string {
	var all []string
	for _, set := range settings {
		_, secrets := redact(set)
		for _, v := range secrets {
			if len(v) >= 4 {
				all = append(all, v)
			}
		}
	}
	if len(all) == 0 {
		return func(s string) string { return s }
	}
	sort.SliceStable(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	pairs := make([]string, 0, 2*len(all))
	for _, v := range all {
		pairs = append(pairs, v, masked)
	}
	return strings.NewReplacer(pairs...).Replace
}

// redactedFlag is a string flag shown redacted (redactSpec), so that -help
// does not print a password taken from WINDBG_REMOTE or WINDBG_CDB_ARGS.
type redactedFlag struct{ p *string }

func (f redactedFlag) String() string {
	if f.p == nil {
		return ""
	}
	return redactSpec(*f.p)
}

func (f redactedFlag) Set(v string) error {
	*f.p = v
	return nil
}
