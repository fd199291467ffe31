package wirenames

import "github.com/winbridge/winbridge/internal/jsonscan"

// Table is every string below.
var Table = jsonscan.NewInterned(
	// Methods.
	"initialize", "ping", "server/discover", "tools/list", "tools/call", "logging/setLevel",
	"resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
	"resources/unsubscribe", "prompts/list", "prompts/get", "completion/complete",
	"subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list",
	"skills/list", "skills/get", "resources/directory/read",
	"sampling/createMessage", "elicitation/create", "roots/list",
	"notifications/initialized", "notifications/cancelled", "notifications/progress",
	"notifications/message", "notifications/resources/updated", "notifications/resources/list_changed",
	"notifications/tools/list_changed", "notifications/prompts/list_changed",
	"notifications/roots/list_changed", "notifications/tasks/status",
	"notifications/subscriptions/acknowledged", "notifications/elicitation/complete",
	// Protocol versions.
	"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
	// Log levels.
	"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
	// Result types.
	"complete", "input_required", "task",
	// Content types.
	"text", "image", "audio", "resource", "resource_link",
	// The JSON-RPC version.
	"2.0",
)

// Unquote decodes the JSON string token s as jsonscan.Unquote does, with
// no allocation for a string of Table.
func Unquote(s []byte) (string, bool) { return Table.UnquoteInterned(s) }
