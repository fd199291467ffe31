package mcp

// Implementation describes a client or server program.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitzero"`
}

// Icon is an image a client can show for a tool, resource, prompt or program.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitzero"`
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// Role is the speaker of a message: "user" or "assistant".
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations tell a client how to use an object.
type Annotations struct {
	Audience     []Role   `json:"audience,omitzero"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// LoggingLevel is a syslog severity, from "debug" to "emergency".
type LoggingLevel string

// Logging levels, least severe first.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

var levelRank = map[LoggingLevel]int{
	LevelDebug: 0, LevelInfo: 1, LevelNotice: 2, LevelWarning: 3,
	LevelError: 4, LevelCritical: 5, LevelAlert: 6, LevelEmergency: 7,
}

// valid reports whether l is one of the eight levels.
func (l LoggingLevel) valid() bool { _, ok := levelRank[l]; return ok }

// atLeast reports whether l is as severe as min.
func (l LoggingLevel) atLeast(min LoggingLevel) bool { return levelRank[l] >= levelRank[min] }
