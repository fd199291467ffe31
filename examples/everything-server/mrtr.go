package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/winbridge/winbridge/mcp"
)

// The test_input_required_result_* tools and test_input_required_result_prompt
// serve the input-required-result-* scenarios of 2026-07-28 (SEP-2322,
// multi round-trip requests). Each handler simply asks (req.Elicit,
// req.CreateMessage, req.ListRoots): in 2026-07-28 the library answers the
// first run with an InputRequiredResult holding what was asked and a
// signed requestState, and runs the handler again, from the start, when
// the client retries with the answers. In the legacy era the same handlers
// send real requests to the client, so they are useful there too.
//
// The scenarios document a key for each input request ("user_name",
// "confirm", "step1", ...); mcp.InputKey sends it instead of the generated
// "elicitation-1" style key.

// elicitKey asks for form input under key.
func elicitKey(ctx context.Context, req askRequest, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return req.Elicit(ctx, p, mcp.InputKey(key))
}

// sampleKey asks the client to sample under key.
func sampleKey(ctx context.Context, req askRequest, key string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return req.CreateMessage(ctx, p, mcp.InputKey(key))
}

// rootsKey asks for the client's roots under key.
func rootsKey(ctx context.Context, req askRequest, key string) (*mcp.ListRootsResult, error) {
	return req.ListRoots(ctx, mcp.InputKey(key))
}

// askRequest is what tool and prompt requests have in common for asking.
type askRequest interface {
	Elicit(context.Context, *mcp.ElicitParams, ...mcp.AskOption) (*mcp.ElicitResult, error)
	CreateMessage(context.Context, *mcp.CreateMessageParams, ...mcp.AskOption) (*mcp.CreateMessageResult, error)
	ListRoots(context.Context, ...mcp.AskOption) (*mcp.ListRootsResult, error)
}

// asking collects the errors of several questions asked in one run, so
// that a 2026-07-28 client gets all of them in one InputRequiredResult: it
// returns at once on a real failure, and remembers ErrInputRequired.
type asking struct{ err error }

func (a *asking) add(err error) error {
	switch {
	case err == nil:
	case errors.Is(err, mcp.ErrInputRequired):
		a.err = err
	default:
		return err
	}
	return nil
}

// textSchema is a form of one required field of the given type.
func textSchema(field, typ string) *mcp.ElicitationSchema {
	return &mcp.ElicitationSchema{
		Properties: map[string]*mcp.PrimitiveSchemaDefinition{field: {Type: typ}},
		Required:   []string{field},
	}
}

// field returns an accepted form's string field, or "unknown".
func field(res *mcp.ElicitResult, name string) string {
	if s, ok := res.Content[name].(string); ok {
		return s
	}
	return "unknown"
}

func samplingParams(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: prompt}}}},
		MaxTokens: maxTokens,
	}
}

func addMRTR(srv *mcp.Server) {
	tool := func(name, desc string, h func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: desc},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
				res, err := h(ctx, req)
				return res, nil, err
			})
	}

	// input-required-result-basic-elicitation, -missing-input-response,
	// -result-type, -ignore-extra-params, -validate-input.
	tool("test_input_required_result_elicitation", "MRTR: returns InputRequiredResult with elicitation request",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := elicitKey(ctx, req, "user_name", &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: textSchema("name", "string")})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Hello, %s!", field(res, "name"))), nil
		})

	// input-required-result-basic-sampling.
	tool("test_input_required_result_sampling", "MRTR: returns InputRequiredResult with sampling request",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := sampleKey(ctx, req, "sample_request", samplingParams("What is the capital of France?", 100))
			if err != nil {
				return nil, err
			}
			return text("Sampling result: " + sampledText(res)), nil
		})

	// input-required-result-basic-list-roots.
	tool("test_input_required_result_list_roots", "MRTR: returns InputRequiredResult with roots/list request",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := rootsKey(ctx, req, "roots_request")
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Found %d root(s)", len(res.Roots))), nil
		})

	// input-required-result-request-state: the library always sends a
	// signed requestState and verifies it on the retry.
	tool("test_input_required_result_request_state", "MRTR: returns InputRequiredResult with requestState",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := elicitKey(ctx, req, "confirm", &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: textSchema("ok", "boolean")})
			if err != nil {
				return nil, err
			}
			if ok, _ := res.Content["ok"].(bool); !ok || res.Action != mcp.ElicitActionAccept {
				return text("state-ok: requestState validated; not confirmed"), nil
			}
			return text("state-ok: requestState validated"), nil
		})

	// input-required-result-multiple-input-requests: three questions of
	// three kinds, asked in one round.
	tool("test_input_required_result_multiple_inputs", "MRTR: returns InputRequiredResult with multiple input requests",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a asking
			name, err := elicitKey(ctx, req, "user_name", &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: textSchema("name", "string")})
			if err := a.add(err); err != nil {
				return nil, err
			}
			greeting, err := sampleKey(ctx, req, "greeting", samplingParams("Generate a greeting", 50))
			if err := a.add(err); err != nil {
				return nil, err
			}
			roots, err := rootsKey(ctx, req, "client_roots")
			if err := a.add(err); err != nil {
				return nil, err
			}
			if a.err != nil {
				return nil, a.err
			}
			return text(fmt.Sprintf("Name: %s; Greeting: %s; Roots: %d", field(name, "name"), sampledText(greeting), len(roots.Roots))), nil
		})

	// input-required-result-multi-round: the second question is asked
	// only once the first is answered, so each round has a new state.
	tool("test_input_required_result_multi_round", "MRTR: multi-round InputRequiredResult workflow",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			step1, err := elicitKey(ctx, req, "step1", &mcp.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: textSchema("name", "string")})
			if err != nil {
				return nil, err
			}
			step2, err := elicitKey(ctx, req, "step2", &mcp.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: textSchema("color", "string")})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Multi-round complete for %s who likes %s", field(step1, "name"), field(step2, "color"))), nil
		})

	// input-required-result-tampered-state: the library signs the state
	// (HMAC) and answers an altered one with -32602.
	tool("test_input_required_result_tampered_state", "MRTR: HMAC-signed requestState integrity test",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, err := elicitKey(ctx, req, "confirm", &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: textSchema("ok", "boolean")}); err != nil {
				return nil, err
			}
			return text("integrity-ok: state verified"), nil
		})

	// input-required-result-capability-check: ask only for what the
	// client declared.
	tool("test_input_required_result_capabilities", "MRTR: respects client capabilities in inputRequests",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			caps := req.ClientCapabilities()
			var a asking
			var got []string
			if caps.Elicitation != nil {
				_, err := elicitKey(ctx, req, "elicit_input", &mcp.ElicitParams{Message: "Elicitation input", RequestedSchema: textSchema("value", "string")})
				if err := a.add(err); err != nil {
					return nil, err
				}
				got = append(got, "elicit_input")
			}
			if caps.Sampling != nil {
				_, err := sampleKey(ctx, req, "sample_input", samplingParams("Sample request", 50))
				if err := a.add(err); err != nil {
					return nil, err
				}
				got = append(got, "sample_input")
			}
			if len(got) == 0 {
				return text("No supported capabilities declared"), nil
			}
			if a.err != nil {
				return nil, a.err
			}
			sort.Strings(got)
			return text("capabilities-ok: received " + strings.Join(got, ",")), nil
		})

	// input-required-result-non-tool-request: prompts/get asks too.
	srv.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "MRTR: prompt that requires elicitation input"},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			res, err := elicitKey(ctx, req, "user_context", &mcp.ElicitParams{Message: "What context should the prompt use?", RequestedSchema: textSchema("context", "string")})
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Prompt with context: " + field(res, "context")}},
			}}, nil
		})
}
