package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

func featureServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "features", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			var out []string
			for _, v := range []string{"python", "pytorch", "go", "rust"} {
				if strings.HasPrefix(v, req.Params.Argument.Value) {
					out = append(out, v)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: out}}, nil
		},
	})
	srv.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: mcp.Ptr("static text")}}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "binary", MIMEType: "image/png"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: mcp.Ptr("AAEC")}}}, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "by id"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := req.TemplateVars()["id"]
			if id == "missing" {
				return nil, mcp.ErrResourceNotFound
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: mcp.Ptr(`{"id":"` + id + `"}`)}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"]}}}}, nil
		})
	return srv
}

func TestResourcesPromptsCompletion(t *testing.T) {
	for _, v := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			srv := featureServer()
			a, b := transport.Pipe(nil)
			srv.Connect(b)
			c, err := client.Connect(ctx, a, &client.Options{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			caps := c.Capabilities()
			if caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
				t.Errorf("capabilities: %+v", caps)
			}
			res, err := c.ListResources(ctx)
			if err != nil || len(res) != 2 || res[0].URI != "test://static-binary" {
				t.Fatalf("ListResources: %v %v", res, err)
			}
			tmpl, err := c.ListResourceTemplates(ctx)
			if err != nil || len(tmpl) != 1 || tmpl[0].URITemplate != "test://template/{id}/data" {
				t.Fatalf("ListResourceTemplates: %v %v", tmpl, err)
			}
			r, err := c.ReadResource(ctx, "test://static-text")
			if err != nil || *r.Contents[0].Text != "static text" {
				t.Fatalf("read text: %+v %v", r, err)
			}
			r, err = c.ReadResource(ctx, "test://static-binary")
			if err != nil || *r.Contents[0].Blob != "AAEC" {
				t.Fatalf("read blob: %+v %v", r, err)
			}
			r, err = c.ReadResource(ctx, "test://template/a%20b/data")
			if err != nil || *r.Contents[0].Text != `{"id":"a b"}` {
				t.Fatalf("read template: %+v %v", r, err)
			}
			wantCode := int64(mcp.CodeResourceNotFound)
			if mcp.IsStateless(v) {
				wantCode = mcp.CodeInvalidParams
			}
			for _, uri := range []string{"test://nope", "test://template/missing/data"} {
				_, err = c.ReadResource(ctx, uri)
				var e *mcp.Error
				if !errors.As(err, &e) || e.Code != wantCode || !strings.Contains(string(e.Data), uri) {
					t.Errorf("not found %s: %v", uri, err)
				}
			}
			prompts, err := c.ListPrompts(ctx)
			if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" {
				t.Fatalf("ListPrompts: %v %v", prompts, err)
			}
			g, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
			if err != nil || g.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ada" {
				t.Fatalf("GetPrompt: %+v %v", g, err)
			}
			_, err = c.GetPrompt(ctx, "greet", nil)
			var e *mcp.Error
			if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams || !strings.Contains(e.Message, `"name"`) {
				t.Errorf("missing argument: %v", err)
			}
			comp, err := c.Complete(ctx, &mcp.PromptReference{Name: "greet"}, mcp.CompleteArgument{Name: "name", Value: "py"}, nil)
			if err != nil || strings.Join(comp.Values, ",") != "python,pytorch" {
				t.Errorf("Complete: %+v %v", comp, err)
			}
			_, err = c.Complete(ctx, &mcp.PromptReference{Name: "nope"}, mcp.CompleteArgument{Name: "x"}, nil)
			if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
				t.Errorf("Complete unknown prompt: %v", err)
			}
		})
	}
}

func TestSubscribeAndUpdated(t *testing.T) {
	ctx := context.Background()
	srv := featureServer()
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	updated := make(chan string, 4)
	c, err := client.Connect(ctx, a, &client.Options{ProtocolVersion: mcp.Version20251125, OnResourceUpdated: func(uri string) { updated <- uri }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Subscribe(ctx, "test://static-text"); err != nil {
		t.Fatal(err)
	}
	srv.ResourceUpdated(ctx, "test://static-binary") // not subscribed: no notification
	srv.ResourceUpdated(ctx, "test://static-text")
	select {
	case uri := <-updated:
		if uri != "test://static-text" {
			t.Fatalf("updated %s", uri)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/resources/updated")
	}
	if err := c.Unsubscribe(ctx, "test://static-text"); err != nil {
		t.Fatal(err)
	}
	srv.ResourceUpdated(ctx, "test://static-text")
	// A ping round trip orders after the notification would have been sent.
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-updated:
		t.Fatalf("update after unsubscribe: %s", uri)
	default:
	}
}
