package gateway

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/winbridge/winbridge/internal/jsonwalk"
	"github.com/winbridge/winbridge/internal/toolname"
	"github.com/winbridge/winbridge/mcp"
)

// PolicyError reports a problem in a policy, naming the JSON path of the
// value at fault, as in `tools["fs/read"].approval: want "always" or
// "never", got "sometimes"`.
type PolicyError struct {
	Path    string
	Problem string
}

func (e *PolicyError) Error() string {
	if e.Path == "" {
		return "policy: " + e.Problem
	}
	return "policy: " + e.Path + ": " + e.Problem
}

// LoadPolicy reads and parses a policy file.
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p, err := ParsePolicy(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy parses a policy document. Every problem is a *PolicyError;
// all are reported, joined. Unknown members are errors too: a misspelt
// "deny" must not silently allow.
func ParsePolicy(data []byte) (*Policy, error) {
	doc, err := jsonwalk.Decode(data)
	if err != nil {
		return nil, &PolicyError{Problem: err.Error()}
	}
	pp := &policyParser{}
	p := pp.policy(doc)
	if err := pp.Err(func(path, problem string) error { return &PolicyError{Path: path, Problem: problem} }); err != nil {
		return nil, err
	}
	return p, nil
}

type policyParser struct{ jsonwalk.Walker }

// object checks v is an object with only the known members, and calls f
// for each member in name order.
func (pp *policyParser) object(path string, v any, known []string, f func(name, path string, v any)) {
	m, ok := pp.Object(path, v)
	if !ok {
		return
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if known != nil && !slices.Contains(known, k) {
			pp.Fail(jsonwalk.Member(path, k), "unknown member (known: %v)", known)
			continue
		}
		f(k, jsonwalk.Member(path, k), m[k])
	}
}

func (pp *policyParser) str(path string, v any) string {
	s, _ := pp.String(path, v)
	return s
}

func (pp *policyParser) oneOf(path string, v any, allowed ...string) string {
	s, ok := v.(string)
	if !ok || !slices.Contains(allowed, s) {
		got := jsonwalk.TypeName(v)
		if ok {
			got = strconv.Quote(s)
		}
		pp.Fail(path, "want one of %q, got %s", allowed, got)
		return ""
	}
	return s
}

// count reads a non-negative integer no larger than max.
func (pp *policyParser) count(path string, v any, max int64) int {
	n, ok := v.(json.Number)
	if !ok {
		pp.Fail(path, "want integer, got %s", jsonwalk.TypeName(v))
		return 0
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || i < 0 || i > max {
		pp.Fail(path, "want an integer from 0 to %d, got %s", max, n)
		return 0
	}
	return int(i)
}

func (pp *policyParser) strings(path string, v any, each func(path, s string)) []string {
	a, ok := pp.Array(path, v)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(a))
	for i, e := range a {
		ep := jsonwalk.Index(path, i)
		s, ok := e.(string)
		if !ok {
			pp.Fail(ep, "want string, got %s", jsonwalk.TypeName(e))
			continue
		}
		if each != nil {
			each(ep, s)
		}
		out = append(out, s)
	}
	return out
}

func (pp *policyParser) pattern(path, s string) {
	if s == "" {
		pp.Fail(path, "empty pattern")
	}
}

func (pp *policyParser) policy(doc any) *Policy {
	p := &Policy{Profiles: map[string]*Profile{}, Tools: map[string]*ToolRule{}}
	pp.object("", doc, []string{"$schema", "profile", "profiles", "tools", "roots", "approval", "budgets", "limits", "risk", "prompts", "promptsRequireTemplate", "stateless", "servers"}, func(name, path string, v any) {
		switch name {
		case "stateless":
			pp.object(path, v, []string{"windowMs", "anonymousCalls"}, func(name, path string, v any) {
				switch name {
				case "windowMs":
					p.Stateless.Window = time.Duration(pp.count(path, v, 366*24*3600*1000)) * time.Millisecond
				case "anonymousCalls":
					p.Stateless.AnonymousCalls = pp.count(path, v, 1<<31-1)
				}
			})
		case "servers":
			p.Servers = map[string]*ServerRule{}
			pp.object(path, v, nil, func(name, path string, v any) {
				r := &ServerRule{}
				pp.object(path, v, []string{"sampling", "elicitation", "roots", "subscriptions"}, func(name, path string, v any) {
					s := pp.oneOf(path, v, "allow", "deny")
					switch name {
					case "sampling":
						r.Sampling = s
					case "elicitation":
						r.Elicitation = s
					case "roots":
						r.Roots = s
					case "subscriptions":
						r.Subscriptions = s
					}
				})
				p.Servers[name] = r
			})
		case "prompts":
			p.Prompts = map[string]*PromptTemplate{}
			pp.object(path, v, nil, func(name, path string, v any) {
				if s, t, ok := cutKey(name); !ok || s == "" || t == "" {
					pp.Fail(path, "want a \"server/prompt\" key")
				}
				p.Prompts[name] = pp.promptTemplate(path, v)
			})
		case "promptsRequireTemplate":
			p.PromptsRequireTemplate = pp.Bool(path, v)
		case "$schema":
			pp.str(path, v)
		case "profile":
			p.Profile = pp.str(path, v)
		case "profiles":
			pp.object(path, v, nil, func(name, path string, v any) { p.Profiles[name] = pp.profile(path, v) })
		case "tools":
			pp.object(path, v, nil, func(name, path string, v any) {
				if s, t, ok := cutKey(name); !ok || s == "" || t == "" {
					pp.Fail(path, "want a \"server/tool\" key")
				}
				p.Tools[name] = pp.toolRule(path, v)
			})
		case "roots":
			p.Roots = pp.strings(path, v, func(path, s string) {
				if s == "" {
					pp.Fail(path, "empty root")
				}
			})
		case "approval":
			p.Approval = pp.approval(path, v)
		case "budgets":
			p.Budgets = pp.budgets(path, v)
		case "limits":
			p.Limits = pp.limits(path, v)
		case "risk":
			pp.object(path, v, []string{"destructive", "openWorld", "writes"}, func(name, path string, v any) {
				s := pp.str(path, v)
				switch name {
				case "destructive":
					p.Risk.Destructive = s
				case "openWorld":
					p.Risk.OpenWorld = s
				case "writes":
					p.Risk.Writes = s
				}
			})
		}
	})
	if p.Profile != "" {
		if _, ok := p.Profiles[p.Profile]; !ok && p.Profile != "default" {
			pp.Fail("profile", "no profile %q in profiles", p.Profile)
		}
	}
	// Fixed names must be unique across tools.
	seen := map[string]string{}
	keys := make([]string, 0, len(p.Tools))
	for k := range p.Tools {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if n := p.Tools[k].Name; n != "" {
			if other, dup := seen[n]; dup {
				pp.Fail(jsonwalk.Member(jsonwalk.Member("tools", k), "name"), "%q is also the name of %q", n, other)
			}
			seen[n] = k
		}
	}
	return p
}

// cutKey splits a "server/tool" key at its first "/".
func cutKey(k string) (server, tool string, ok bool) {
	for i := 0; i < len(k); i++ {
		if k[i] == '/' {
			return k[:i], k[i+1:], true
		}
	}
	return "", "", false
}

func (pp *policyParser) profile(path string, v any) *Profile {
	pr := &Profile{}
	pp.object(path, v, []string{"allow", "deny", "target", "maxNameLength", "riskPrefixes"}, func(name, path string, v any) {
		switch name {
		case "allow":
			pr.Allow = pp.strings(path, v, pp.pattern)
			if a, ok := v.([]any); ok && len(a) == 0 {
				// An empty Allow matches every tool, but [] reads as
				// "nothing": it must not fail open.
				pp.Fail(path, `an empty list would allow every tool; leave "allow" out to allow all, or deny "*" to allow none`)
			}
		case "deny":
			pr.Deny = pp.strings(path, v, pp.pattern)
		case "target":
			pr.Target = Target(pp.oneOf(path, v, targetNames()...))
		case "maxNameLength":
			pr.MaxNameLength = pp.count(path, v, 1<<10)
			if pr.MaxNameLength < toolname.MinMax {
				pp.Fail(path, "want at least %d", toolname.MinMax)
			}
		case "riskPrefixes":
			pr.NoRiskPrefixes = !pp.Bool(path, v)
		}
	})
	return pr
}

func (pp *policyParser) toolRule(path string, v any) *ToolRule {
	r := &ToolRule{}
	pp.object(path, v, []string{"name", "title", "description", "annotations", "hidden", "pathArgs", "approval", "budgets", "maxArgumentBytes"}, func(name, path string, v any) {
		switch name {
		case "name":
			r.Name = pp.str(path, v)
			if !toolname.Valid(r.Name, 1<<10) {
				pp.Fail(path, "%q does not match ^[a-zA-Z0-9_-]+$", r.Name)
			}
		case "title":
			r.Title = pp.str(path, v)
		case "description":
			r.Description = pp.str(path, v)
		case "annotations":
			a := &mcp.ToolAnnotations{}
			pp.object(path, v, []string{"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}, func(name, path string, v any) {
				switch name {
				case "title":
					a.Title = pp.str(path, v)
				case "readOnlyHint":
					a.ReadOnlyHint = mcp.Ptr(pp.Bool(path, v))
				case "destructiveHint":
					a.DestructiveHint = mcp.Ptr(pp.Bool(path, v))
				case "idempotentHint":
					a.IdempotentHint = mcp.Ptr(pp.Bool(path, v))
				case "openWorldHint":
					a.OpenWorldHint = mcp.Ptr(pp.Bool(path, v))
				}
			})
			r.Annotations = a
		case "hidden":
			r.Hidden = pp.Bool(path, v)
		case "pathArgs":
			r.PathArgs = pp.strings(path, v, func(path, s string) {
				if _, err := parseArgPath(s); err != nil {
					pp.Fail(path, "%v", err)
				}
			})
		case "approval":
			r.Approval = pp.oneOf(path, v, "always", "never")
		case "budgets":
			r.Budgets = pp.budgets(path, v)
		case "maxArgumentBytes":
			r.MaxArgumentBytes = pp.count(path, v, 1<<30)
		}
	})
	return r
}

func (pp *policyParser) approval(path string, v any) Approval {
	var a Approval
	pp.object(path, v, []string{"default", "rules", "withoutElicitation", "budget"}, func(name, path string, v any) {
		switch name {
		case "budget":
			pp.object(path, v, []string{"refusals", "windowMs", "concurrent"}, func(name, path string, v any) {
				switch name {
				case "refusals":
					a.Budget.Refusals = pp.count(path, v, 1<<31-1)
				case "windowMs":
					a.Budget.Window = time.Duration(pp.count(path, v, 366*24*3600*1000)) * time.Millisecond
				case "concurrent":
					a.Budget.Concurrent = pp.count(path, v, 1<<16)
				}
			})
		case "default":
			a.Default = pp.oneOf(path, v, "risky", "always", "never")
		case "withoutElicitation":
			a.WithoutElicitation = pp.oneOf(path, v, "refuse", "allow")
		case "rules":
			rules, ok := pp.Array(path, v)
			if !ok {
				return
			}
			for i, rv := range rules {
				var r ApprovalRule
				rp := jsonwalk.Index(path, i)
				pp.object(rp, rv, []string{"tool", "require"}, func(name, path string, v any) {
					switch name {
					case "tool":
						r.Tool = pp.str(path, v)
						pp.pattern(path, r.Tool)
					case "require":
						r.Require = pp.oneOf(path, v, "always", "never")
					}
				})
				if r.Tool == "" || r.Require == "" {
					pp.Fail(rp, "a rule needs \"tool\" and \"require\"")
				}
				a.Rules = append(a.Rules, r)
			}
		}
	})
	return a
}

func (pp *policyParser) budgets(path string, v any) Budgets {
	var b Budgets
	pp.object(path, v, []string{"callsPerSession", "concurrentPerTool", "timeoutMs"}, func(name, path string, v any) {
		switch name {
		case "callsPerSession":
			b.CallsPerSession = pp.count(path, v, 1<<31-1)
		case "concurrentPerTool":
			b.ConcurrentPerTool = pp.count(path, v, 1<<16)
		case "timeoutMs":
			b.Timeout = time.Duration(pp.count(path, v, 24*3600*1000)) * time.Millisecond
		}
	})
	return b
}

func (pp *policyParser) limits(path string, v any) Limits {
	var l Limits
	pp.object(path, v, []string{"maxArgumentBytes", "maxBlockBytes", "maxResultBytes", "maxUpstreamMessageBytes", "maxSchemaBytes"}, func(name, path string, v any) {
		n := pp.count(path, v, 1<<30)
		switch name {
		case "maxArgumentBytes":
			l.MaxArgumentBytes = n
		case "maxBlockBytes":
			l.MaxBlockBytes = n
		case "maxResultBytes":
			l.MaxResultBytes = n
		case "maxUpstreamMessageBytes":
			l.MaxUpstreamMessageBytes = n
		case "maxSchemaBytes":
			l.MaxSchemaBytes = n
		}
	})
	return l
}

func (pp *policyParser) promptTemplate(path string, v any) *PromptTemplate {
	t := &PromptTemplate{}
	pp.object(path, v, []string{"messages"}, func(name, path string, v any) {
		msgs, ok := pp.Array(path, v)
		if !ok {
			return
		}
		for i, mv := range msgs {
			var m PromptTemplateMessage
			mp := jsonwalk.Index(path, i)
			pp.object(mp, mv, []string{"role", "text"}, func(name, path string, v any) {
				switch name {
				case "role":
					m.Role = pp.oneOf(path, v, "user", "assistant")
				case "text":
					m.Text = pp.str(path, v)
				}
			})
			if m.Role == "" {
				pp.Fail(mp, "a message needs \"role\"")
			}
			t.Messages = append(t.Messages, m)
		}
	})
	if t.Messages == nil {
		pp.Fail(path, "a template needs \"messages\"")
	}
	return t
}
