package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/winbridge/winbridge/mcp"
)

// approve asks the downstream user whether the call may run, through
// elicitation, showing the arguments that will be sent (send). done
// reports that the call ends here with res, err. The question counts
// against asker's approval budget (Policy.Approval.Budget): past it the
// call is refused without asking.
func (g *Gateway) approve(ctx context.Context, req *mcp.CallToolRequest, c *call, send json.RawMessage, asker *sessionState) (res *mcp.CallToolResult, err error, done bool) {
	e := c.e
	caps := req.ClientCapabilities()
	if caps.Elicitation == nil || (caps.Elicitation.Form == nil && caps.Elicitation.URL != nil) {
		if c.set.pol.Approval.WithoutElicitation == "allow" {
			c.rec.Approval = "allowed_without_elicitation"
			return nil, nil, false
		}
		c.rec.Approval = "unavailable"
		res, err = c.refuse(CodeApprovalUnavailable, "tool %q needs the user's approval, and this client cannot ask (it does not support elicitation); the policy can allow such calls (approval.withoutElicitation) or not require approval for this tool", e.Name)
		return res, err, true
	}
	msg := fmt.Sprintf("Allow the model to call %q (tool %q of server %q)?", e.Name, e.Tool, e.Server)
	switch {
	case e.Risk.Destructive:
		msg += " Its annotations say it may be destructive."
	case !e.Risk.ReadOnly:
		msg += " Its annotations say it may change things."
	}
	msg += " Arguments: " + approvalArguments(send)
	// A 2026-07-28 call retried with the answer was counted when asked
	// (as a refusal, given back if accepted): it is not refused now for
	// the question it answers. Only an answer the sealed state shows was
	// asked for counts: one planted in inputResponses would otherwise pass
	// every question by the budget uncounted.
	budget := c.set.pol.Approval.Budget.withDefaults()
	retried := req.Answers(approvalKey)
	if retried {
		if why := asker.approvals.use(g.now(), req.Params.RequestState); why != "" {
			c.rec.Approval = "not_asked"
			res, err = c.refuse(CodeApprovalReplayed, "tool %q needs the user's approval, and the answer this call brought %s", e.Name, why)
			return res, err, true
		}
	}
	if !retried {
		if why := asker.approvals.refuseAsk(g.now(), budget, asker.what()); why != "" {
			c.rec.Approval = "not_asked"
			res, err = c.refuse(CodeApprovalBudget, "tool %q needs the user's approval, and it was not asked: %s", e.Name, why)
			return res, err, true
		}
	}
	ans, err := req.Elicit(ctx, &mcp.ElicitParams{Message: msg, RequestedSchema: &mcp.ElicitationSchema{}}, mcp.InputKey(approvalKey))
	accepted := err == nil && ans.Action == mcp.ElicitActionAccept
	if retried {
		asker.approvals.answered(g.now(), budget, accepted)
	} else {
		// Asked now: an input-required result counts as not accepted
		// until the retried call brings the answer.
		asker.approvals.asked(g.now(), budget, accepted, false)
	}
	switch {
	case errors.Is(err, mcp.ErrInputRequired):
		return nil, err, true
	case err != nil:
		c.rec.Approval = "unavailable"
		res, err = c.refuse(CodeApprovalUnavailable, "asking for approval of tool %q failed: %v", e.Name, err)
		return res, err, true
	}
	switch ans.Action {
	case mcp.ElicitActionAccept:
		c.rec.Approval = "accepted"
		return nil, nil, false
	case mcp.ElicitActionDecline:
		c.rec.Approval = "declined"
		res, err = c.refuse(CodeApprovalDeclined, "the user declined the call of tool %q", e.Name)
	default:
		c.rec.Approval = "cancelled"
		res, err = c.refuse(CodeApprovalCancelled, "the user dismissed the approval of tool %q", e.Name)
	}
	return res, err, true
}

// maxApprovalArguments bounds the arguments shown in an approval
// question: a user asked to approve must see what will run, but a model
// must not be able to bury the question under megabytes.
const maxApprovalArguments = 2048

// approvalArguments is the arguments of a call as the user approving it
// reads them: compact JSON, with every control and format character
// (bidirectional overrides, zero-width characters, line breaks) written
// as a \u escape, so that what is shown cannot be made to read as
// something other than what is sent; the same JSON value still. Past
// maxApprovalArguments it is cut at a character and says how much more
// there is.
func approvalArguments(send json.RawMessage) string {
	raw := []byte(send)
	var buf bytes.Buffer
	switch {
	case len(send) == 0:
		raw = []byte("{}")
	case json.Compact(&buf, send) == nil:
		raw = buf.Bytes()
	}
	var b strings.Builder
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		var part string
		switch {
		case r == utf8.RuneError && size <= 1:
			part = `\ufffd`
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			if r > 0xFFFF {
				hi, lo := utf16.EncodeRune(r)
				part = fmt.Sprintf(`\u%04x\u%04x`, hi, lo)
			} else {
				part = fmt.Sprintf(`\u%04x`, r)
			}
		default:
			part = string(raw[i : i+size])
		}
		if b.Len()+len(part) > maxApprovalArguments {
			fmt.Fprintf(&b, " … (%d more bytes not shown)", len(raw)-i)
			break
		}
		b.WriteString(part)
		i += size
	}
	return b.String()
}
