package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/winbridge/winbridge/mcp"
)

// approve asks the downstream user whether the call may run, through
// elicitation. done reports that the call ends here with res, err.
func (g *Gateway) approve(ctx context.Context, req *mcp.CallToolRequest, c *call) (res *mcp.CallToolResult, err error, done bool) {
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
	ans, err := req.Elicit(ctx, &mcp.ElicitParams{Message: msg, RequestedSchema: &mcp.ElicitationSchema{}})
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
