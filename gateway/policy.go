package gateway

import (
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// Policy says what the model may see and call, and how. It is read from
// JSON (ParsePolicy); docs/FACADE.md is the reference. The zero value
// allows every tool with the defaults below.
type Policy struct {
	// Profile is the profile used when Options.Profile is empty; empty
	// means "default" (which, when not defined, allows everything).
	Profile string
	// Profiles by name.
	Profiles map[string]*Profile
	// Tools holds per-tool overrides, by "server/tool" (exact names).
	Tools map[string]*ToolRule
	// Roots are the directories path arguments must resolve inside, in
	// WSL or Windows form. Empty: path arguments are not bound (but any
	// tool rule that declares pathArgs is refused, so that a forgotten
	// root never means "anywhere").
	Roots []string
	// Approval says which calls need the user's approval.
	Approval Approval
	// Budgets bound calls; a ToolRule can override them per tool.
	Budgets Budgets
	// Limits bound bytes.
	Limits Limits
	// Stateless bounds the tool calls of stateless (2026-07-28) requests,
	// each of which is a session of its own.
	Stateless StatelessBudget
	// Servers holds per-server rules, by server name: what an upstream
	// may ask of the downstream client.
	Servers map[string]*ServerRule
	// Risk is the wording of the description prefixes.
	Risk RiskWording
	// Prompts declares prompt templates by "server/prompt": a prompts/get
	// result of such a prompt must equal the template rendered with the
	// request's arguments, or it is refused.
	Prompts map[string]*PromptTemplate
	// PromptsRequireTemplate hides every prompt the policy declares no
	// template for: an upstream must not inject prompt text it did not
	// declare.
	PromptsRequireTemplate bool
}

// PromptTemplate is the declared text of a prompt: its messages, in
// order, each a role and a text in which {{name}} stands for the
// argument name (an absent argument renders empty; values are inserted
// as they are, never expanded again).
type PromptTemplate struct {
	Messages []PromptTemplateMessage
}

// PromptTemplateMessage is one declared message.
type PromptTemplateMessage struct {
	Role string // "user" or "assistant"
	Text string
}

// Profile selects tools and the shape of the surface for one kind of
// client.
type Profile struct {
	// Allow and Deny are "server/tool" glob patterns ("*" any run of
	// characters, "?" one character; the first "/" separates server from
	// tool). A tool is exposed when some Allow pattern matches (an empty
	// Allow matches everything) and no Deny pattern does.
	Allow, Deny []string
	// Target is the model provider whose schema rules the listed input
	// schemas must pass: "anthropic" (the default), "openai",
	// "openai-strict", "gemini" or "none".
	Target Target
	// MaxNameLength bounds exposed names (default 64; at least 16). Cursor
	// drops tools whose server name plus tool name pass 60 characters: a
	// Cursor profile sets 60 minus the length of the name Cursor knows
	// the facade by.
	MaxNameLength int
	// NoRiskPrefixes leaves descriptions without risk prefixes.
	NoRiskPrefixes bool
}

// ToolRule overrides one upstream tool.
type ToolRule struct {
	// Name is the exposed name (must match ^[a-zA-Z0-9_-]{1,N}$ and be
	// unique); empty means the generated one.
	Name string
	// Title and Description replace the upstream's when not empty.
	Title, Description string
	// Annotations replace the upstream's hints (risk, approval and the
	// listed annotations all follow them).
	Annotations *mcp.ToolAnnotations
	// Hidden tools are neither listed nor callable.
	Hidden bool
	// PathArgs name the arguments that are paths, as dotted paths into
	// the arguments; "[]" after a member means every element of an array
	// ("path", "paths[]", "options.cwd"). Each must resolve inside
	// Policy.Roots.
	PathArgs []string
	// Approval is "always", "never", or empty to follow Policy.Approval.
	Approval string
	// Budgets override Policy.Budgets for this tool (zero fields inherit).
	Budgets Budgets
	// MaxArgumentBytes overrides Limits.MaxArgumentBytes for this tool.
	MaxArgumentBytes int
}

// Approval configures the approval gate.
type Approval struct {
	// Default is "risky" (the default: tools that are destructive or not
	// read-only, by their annotations; a tool without annotations is
	// neither read-only nor known to be safe, so it counts as risky),
	// "always" or "never".
	Default string
	// Rules are tried in order before Default; the first whose Tool
	// pattern ("server/tool" glob) matches decides.
	Rules []ApprovalRule
	// WithoutElicitation is what happens when a call needs approval and
	// the client cannot be asked: "refuse" (the default) or "allow".
	WithoutElicitation string
	// Budget bounds the questions one caller can make the user answer.
	Budget ApprovalBudget
}

// ApprovalBudget bounds the approval questions of one caller — a
// session, or for stateless (2026-07-28) requests the caller their calls
// are counted by (StatelessBudget) — so that a model cannot wear the
// user down with questions until one is accepted. A call that needs
// approval past a bound is refused without asking (approval_budget).
// Zero means the default.
type ApprovalBudget struct {
	// Refusals bounds the questions the user did not accept (declined,
	// dismissed, or failed or timed out while asking; in 2026-07-28 a
	// question counts from when it is asked until its answer comes back
	// accepted) per Window (default 3).
	Refusals int
	// Window is how long refusals count before the count starts again
	// at zero (default 10 minutes).
	Window time.Duration
	// Concurrent bounds the questions open at once (default 1): a user
	// answers one at a time.
	Concurrent int
}

// ApprovalRule decides approval for the tools its pattern matches.
type ApprovalRule struct {
	Tool    string // "server/tool" glob
	Require string // "always" or "never"
}

// Budgets bound calls. Zero means the default.
type Budgets struct {
	// CallsPerSession bounds the tool calls of one downstream session
	// (default 1000; refused calls do not count).
	CallsPerSession int
	// ConcurrentPerTool bounds the calls of one tool running at once,
	// across sessions (default 8); a call beyond it is refused at once,
	// not queued.
	ConcurrentPerTool int
	// Timeout is the walltime of an upstream call (default 2 minutes);
	// when it passes the upstream call is cancelled.
	Timeout time.Duration
}

// StatelessBudget bounds the tool calls of stateless (2026-07-28)
// requests. Each such request is its own session, so calls per session
// (Budgets.CallsPerSession) cannot bound them; they are counted by
// caller as well, over a window: by the authenticated subject and
// client (mcphttp.RequireAuth in front of the facade's handler) against
// CallsPerSession, and the requests without one all together against
// AnonymousCalls. Zero means the default.
type StatelessBudget struct {
	// Window is how long a count runs before it starts again at zero
	// (default 1 hour).
	Window time.Duration
	// AnonymousCalls bounds the calls of all stateless requests without
	// an authenticated subject together, per Window, across the facade's
	// profiles (default 1000).
	AnonymousCalls int
}

// ServerRule says what one upstream server may ask of the downstream
// client during a call of one of its tools. Each is "allow" (the default)
// or "deny"; a denied request is answered with an error, and the client
// never sees it.
type ServerRule struct {
	Sampling      string // sampling/createMessage: the user's model
	Elicitation   string // elicitation/create: the user
	Roots         string // roots/list: the client's directories
	Subscriptions string // resources/subscribe passed on for its resources
}

// Limits bound bytes. Zero means the default.
type Limits struct {
	// MaxArgumentBytes bounds the encoded arguments of a call (default
	// 256 KiB).
	MaxArgumentBytes int
	// MaxBlockBytes bounds each text or binary content block of a result
	// of tools/call, resources/read (each contents entry) and prompts/get
	// (each message) (default 64 KiB; binary data counts in its base64
	// form).
	MaxBlockBytes int
	// MaxResultBytes bounds all content blocks of such a result together
	// (default 256 KiB).
	MaxResultBytes int
	// MaxUpstreamMessageBytes bounds a message from an upstream server,
	// beyond which its response is discarded unread (default 32 MiB).
	MaxUpstreamMessageBytes int
	// MaxSchemaBytes bounds a listed tool's inputSchema (as cleaned for
	// the target) and outputSchema together, encoded (default 64 KiB).
	// Descriptions, titles, examples, defaults and enums inside a schema
	// go into the model's context with the tool. Description and title
	// strings are cut at 4096 bytes first; the rest cannot be cut without
	// changing what the schema means, so a tool still past the cap is
	// withheld (logged, and "withheld" in the plan).
	MaxSchemaBytes int
}

// RiskWording is the text put before a tool's description per risk; an
// empty field means the default shown.
type RiskWording struct {
	Destructive string // "[destructive] "
	OpenWorld   string // "[open world] "
	Writes      string // "[writes] ": not read-only, not destructive
}

// The defaults of Budgets, Limits, StatelessBudget and ApprovalBudget.
const (
	DefaultCallsPerSession   = 1000
	DefaultConcurrentPerTool = 8
	DefaultCallTimeout       = 2 * time.Minute
	DefaultMaxArgumentBytes  = 256 << 10
	DefaultMaxBlockBytes     = 64 << 10
	DefaultMaxResultBytes    = 256 << 10
	DefaultMaxUpstreamBytes  = 32 << 20
	DefaultMaxSchemaBytes    = 64 << 10
	DefaultStatelessWindow   = time.Hour
	DefaultAnonymousCalls    = 1000
	DefaultApprovalRefusals  = 3
	DefaultApprovalWindow    = 10 * time.Minute
	DefaultApprovalsAtOnce   = 1
)

func (b Budgets) or(d Budgets) Budgets {
	if b.CallsPerSession == 0 {
		b.CallsPerSession = d.CallsPerSession
	}
	if b.ConcurrentPerTool == 0 {
		b.ConcurrentPerTool = d.ConcurrentPerTool
	}
	if b.Timeout == 0 {
		b.Timeout = d.Timeout
	}
	return b
}

var defaultBudgets = Budgets{CallsPerSession: DefaultCallsPerSession, ConcurrentPerTool: DefaultConcurrentPerTool, Timeout: DefaultCallTimeout}

func (l Limits) withDefaults() Limits {
	set := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	set(&l.MaxArgumentBytes, DefaultMaxArgumentBytes)
	set(&l.MaxBlockBytes, DefaultMaxBlockBytes)
	set(&l.MaxResultBytes, DefaultMaxResultBytes)
	set(&l.MaxUpstreamMessageBytes, DefaultMaxUpstreamBytes)
	set(&l.MaxSchemaBytes, DefaultMaxSchemaBytes)
	return l
}

func (w RiskWording) withDefaults() RiskWording {
	if w.Destructive == "" {
		w.Destructive = "[destructive] "
	}
	if w.OpenWorld == "" {
		w.OpenWorld = "[open world] "
	}
	if w.Writes == "" {
		w.Writes = "[writes] "
	}
	return w
}

// profile returns the named profile; "" means p.Profile, then "default".
// The "default" profile, when not defined, allows everything.
func (p *Policy) profile(name string) (*Profile, bool) {
	if name == "" {
		name = p.Profile
	}
	if name == "" {
		name = "default"
	}
	if pr, ok := p.Profiles[name]; ok {
		return pr, true
	}
	if name == "default" {
		return &Profile{}, true
	}
	return nil, false
}

func (b ApprovalBudget) withDefaults() ApprovalBudget {
	if b.Refusals == 0 {
		b.Refusals = DefaultApprovalRefusals
	}
	if b.Window <= 0 {
		b.Window = DefaultApprovalWindow
	}
	if b.Concurrent == 0 {
		b.Concurrent = DefaultApprovalsAtOnce
	}
	return b
}
