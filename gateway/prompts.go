package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/winbridge/winbridge/mcp"
)

// CodePromptMismatch is the code of a prompts/get refused because the
// upstream's prompt differs from the template the policy declares.
const CodePromptMismatch Code = "prompt_mismatch"

// render expands {{name}} in text with args, in one pass: an inserted
// value is never expanded again.
func render(text string, args map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.Index(text[i+2:], "}}")
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		b.WriteString(args[strings.TrimSpace(text[i+2:i+2+j])])
		text = text[i+2+j+2:]
	}
}

// verifyPrompt checks an upstream's prompts/get result against the
// declared template: the same messages, roles and texts, each a text
// block, nothing more.
func verifyPrompt(t *PromptTemplate, args map[string]string, res *mcp.GetPromptResult) error {
	if len(res.Messages) != len(t.Messages) {
		return fmt.Errorf("%d messages where the template declares %d", len(res.Messages), len(t.Messages))
	}
	for i, m := range res.Messages {
		want := t.Messages[i]
		if m == nil {
			return fmt.Errorf("message %d is null", i)
		}
		if string(m.Role) != want.Role {
			return fmt.Errorf("message %d: role %q, the template says %q", i, m.Role, want.Role)
		}
		tc, ok := m.Content.(*mcp.TextContent)
		if !ok {
			return fmt.Errorf("message %d: a %T block where the template has text", i, m.Content)
		}
		if tc.Text != render(want.Text, args) {
			return fmt.Errorf("message %d: the text differs from the template", i)
		}
	}
	return nil
}

// promptRefusal is the error a refused prompts/get answers with.
func promptRefusal(name string, err error) *mcp.Error {
	return &mcp.Error{Code: mcp.CodeInternalError,
		Message: fmt.Sprintf("prompt %q refused: %v [%s]", name, err, CodePromptMismatch),
		Data:    json.RawMessage(`{"code":"` + string(CodePromptMismatch) + `"}`)}
}
