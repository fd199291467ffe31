package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// askingServer has a tool that needs the model, the user and the roots.
func askingServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "plan"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Topic string `json:"topic"`
	}) (*mcp.CallToolResult, any, error) {
		answer, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "capital of " + in.Topic}}}}})
		if err != nil {
			return nil, nil, err
		}
		form, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "who?", RequestedSchema: &mcp.ElicitationSchema{Type: "object", Properties: map[string]*mcp.PrimitiveSchemaDefinition{
			"name": {Type: "string"},
			"team": {Type: "string", Default: "core"},
		}}})
		if err != nil {
			return nil, nil, err
		}
		roots, err := req.ListRoots(ctx)
		if err != nil {
			return nil, nil, err
		}
		text := fmt.Sprintf("%s|%s|%v/%v|%d roots", answer.Content[0].(*mcp.TextContent).Text, form.Action, form.Content["name"], form.Content["team"], len(roots.Roots))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	return srv
}

func handlers(calls *int) *client.Options {
	return &client.Options{
		OnSampling: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			*calls++
			q := p.Messages[0].Content[0].(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "answer to " + q}}}, nil
		},
		OnElicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			*calls++
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "ada"}}, nil
		},
		OnRoots: func(ctx context.Context) (*mcp.ListRootsResult, error) {
			*calls++
			return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///a"}, {URI: "file:///b"}}}, nil
		},
	}
}

func TestOneHandlerBothEras(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			var calls int
			opts := handlers(&calls)
			opts.ProtocolVersion = v
			a, b := transport.Pipe(nil)
			askingServer().Connect(b)
			c, err := client.Connect(context.Background(), a, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.CallTool(context.Background(), "plan", map[string]string{"topic": "France"})
			if err != nil {
				t.Fatal(err)
			}
			// The default of "team" comes from the schema (SEP-1034).
			if got := res.TextOf(); got != "answer to capital of France|accept|ada/core|2 roots" {
				t.Fatalf("result %q (isError %v)", got, res.IsError)
			}
			if calls != 3 {
				t.Errorf("handlers called %d times, want 3", calls)
			}
			fut := c.CallToolAsync(context.Background(), "plan", map[string]string{"topic": "Peru"})
			if res, err := fut.Wait(); err != nil || !strings.HasPrefix(res.TextOf(), "answer to capital of Peru") {
				t.Fatalf("async: %v %v", res, err)
			}
		})
	}
}

// rawCall sends a stateless tools/call and returns the raw result.
func rawCall(t *testing.T, conn *transport.Conn, params map[string]any) (json.RawMessage, error) {
	params["_meta"] = map[string]any{
		mcp.MetaProtocolVersion:    mcp.Version20260728,
		mcp.MetaClientCapabilities: map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{}},
	}
	var raw json.RawMessage
	err := conn.Call(context.Background(), "tools/call", params, &raw)
	return raw, err
}

func TestRequestStateCannotBeTampered(t *testing.T) {
	a, b := transport.Pipe(nil)
	askingServer().Connect(b)
	conn := transport.NewConn(a, nil, nil)
	defer conn.Close()
	raw, err := rawCall(t, conn, map[string]any{"name": "plan", "arguments": map[string]any{"topic": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var first mcp.InputRequiredResult
	if err := json.Unmarshal(raw, &first); err != nil || first.ResultType != mcp.ResultInputRequired || first.InputRequests["sampling-1"] == nil {
		t.Fatalf("first round: %s %v", raw, err)
	}
	answer := map[string]any{"sampling-1": map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "A"}}}

	// A flipped byte in the state is refused.
	bad := []byte(first.RequestState)
	bad[3] ^= 1
	_, err = rawCall(t, conn, map[string]any{"name": "plan", "arguments": map[string]any{"topic": "x"}, "inputResponses": answer, "requestState": string(bad)})
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams || !strings.Contains(e.Message, "requestState") {
		t.Fatalf("tampered state: %v", err)
	}
	// State from one request cannot be replayed on another.
	_, err = rawCall(t, conn, map[string]any{"name": "plan", "arguments": map[string]any{"topic": "y"}, "inputResponses": answer, "requestState": first.RequestState})
	if !errors.As(err, &e) || !strings.Contains(e.Message, "different request") {
		t.Fatalf("replayed state: %v", err)
	}
	// The honest retry moves on to the next question.
	raw, err = rawCall(t, conn, map[string]any{"name": "plan", "arguments": map[string]any{"topic": "x"}, "inputResponses": answer, "requestState": first.RequestState})
	var second mcp.InputRequiredResult
	if err != nil || json.Unmarshal(raw, &second) != nil || second.InputRequests["elicitation-2"] == nil || second.InputRequests["sampling-1"] != nil {
		t.Fatalf("second round: %s %v", raw, err)
	}
}

func TestMissingClientCapability(t *testing.T) {
	for v, code := range map[string]int64{mcp.Version20260728: mcp.CodeMissingClientCapability, mcp.Version20251125: mcp.CodeInvalidRequest} {
		a, b := transport.Pipe(nil)
		askingServer().Connect(b)
		c, err := client.Connect(context.Background(), a, &client.Options{ProtocolVersion: v})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CallTool(context.Background(), "plan", map[string]string{"topic": "x"})
		var e *mcp.Error
		if !errors.As(err, &e) || e.Code != code || !strings.Contains(e.Message, "sampling") {
			t.Errorf("%s: %v", v, err)
		}
		c.Close()
	}
}

// TestRawHandlersExact: OnSamplingRaw and OnElicitationRaw get a server's
// questions as it encoded them, and their answers reach the server as
// they wrote them (CreateMessageRaw, ElicitRaw): numbers float64 does not
// hold pass both ways. An answer that does not decode as the typed result
// would is refused.
func TestRawHandlersExact(t *testing.T) {
	const (
		sampling = `{"messages":[{"role":"user","content":{"type":"tool_use","id":"u","name":"t","input":{"n":12345678901234567890123}}}],"maxTokens":5}`
		elicit   = `{"message":"n?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":12345678901234567890}}}}`
		sampled  = `{"role":"assistant","model":"m","content":{"type":"text","text":"x"},"_meta":{"n":98765432109876543210}}`
		elicited = `{"action":"accept","content":{"n":12345678901234567891}}`
	)
	srv := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s, err := req.CreateMessageRaw(ctx, json.RawMessage(sampling))
		if err != nil {
			return nil, err
		}
		e, err := req.ElicitRaw(ctx, json.RawMessage(elicit))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(s) + " " + string(e)}}}, nil
	})
	var got []string
	answer := sampled
	c := connectRaw(t, srv, &client.Options{ProtocolVersion: mcp.Version20251125,
		OnSamplingRaw: func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
			got = append(got, string(p))
			return json.RawMessage(answer), nil
		},
		OnElicitationRaw: func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
			got = append(got, string(p))
			return json.RawMessage(elicited), nil
		}})
	res, err := c.CallTool(context.Background(), "ask", nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", res, err)
	}
	if want := sampled + " " + elicited; res.TextOf() != want {
		t.Errorf("the server got %s, want %s", res.TextOf(), want)
	}
	if len(got) != 2 || got[0] != sampling || got[1] != elicit {
		t.Errorf("the client was asked %q", got)
	}
	answer = `{"role":"assistant","model":"m","content":{"type":"text","text":5}}`
	if res, err := c.CallTool(context.Background(), "ask", nil); err == nil && !res.IsError {
		t.Errorf("an answer that does not decode passed: %s", res.TextOf())
	}
}

// connectRaw connects a client with opts to srv over a pipe.
func connectRaw(t *testing.T, srv *mcp.Server, opts *client.Options) *client.Client {
	t.Helper()
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(context.Background(), a, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
