package mcphttp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

type callerKey struct{}

// What a server asks and logs during a request of a legacy session goes on
// that request's stream, even while other requests of the session are in
// progress, and the client's handler learns whose call it is about
// (transport.RelatedCall): the context the call was made with.
func TestServerRequestsGoWithTheirCall(t *testing.T) {
	const calls = 3
	var arrived sync.WaitGroup
	arrived.Add(calls)
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Who string `json:"who"`
	}) (*mcp.CallToolResult, any, error) {
		arrived.Done()
		arrived.Wait() // every call is in progress before any asks
		_ = req.Log(ctx, mcp.LevelInfo, "ask", "about "+in.Who)
		res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: in.Who, RequestedSchema: &mcp.ElicitationSchema{}})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["caller"])}}}, nil, nil
	})
	_, url := serveHTTP(t, srv, nil)
	var mu sync.Mutex
	logged := map[string]int{}
	c, _ := dialHTTP(t, url, &client.Options{ProtocolVersion: mcp.LatestLegacyVersion, LogLevel: mcp.LevelInfo,
		OnElicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			rc := transport.RelatedCall(ctx)
			if rc == nil {
				return nil, fmt.Errorf("elicitation about %q came with no call", p.Message)
			}
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"caller": rc.Value(callerKey{})}}, nil
		},
		OnLog: func(m *mcp.LoggingMessageParams) {
			mu.Lock()
			logged[fmt.Sprint(m.Data)]++
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range calls {
		who := fmt.Sprintf("caller %d", i)
		wg.Go(func() {
			res, err := c.CallTool(context.WithValue(ctx, callerKey{}, who), "ask", map[string]any{"who": who})
			if err != nil {
				t.Errorf("%s: %v", who, err)
				return
			}
			if got := res.TextOf(); got != who {
				t.Errorf("%s's call was answered for %q", who, got)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i := range calls {
		if n := logged[fmt.Sprintf("about caller %d", i)]; n != 1 {
			t.Errorf("the log of call %d arrived %d times before its result", i, n)
		}
	}
}

// What a server asks about a request that has no stream of its own (a
// prompts/get answered as JSON) must not go on the stream of another
// request in progress, the only one with a stream: the client would take
// it for a request about that other call, and a client serving several
// users (the gateway) would ask the user who made that call. That holds
// too when the handler asks under a context of its own, one the client's
// cancellation does not end: the request it asks through says which
// request the question is about.
func TestServerRequestsAboutAStreamlessRequest(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprintf("own context %v", own), func(t *testing.T) { testAboutAStreamlessRequest(t, own) })
	}
}

func testAboutAStreamlessRequest(t *testing.T, ownContext bool) {
	holding := make(chan struct{})
	release := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "hold"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(holding)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{}, nil, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "ask"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if ownContext {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
		}
		if _, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "prompt", RequestedSchema: &mcp.ElicitationSchema{}}); err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
	})
	_, url := serveHTTP(t, srv, nil)
	asked := make(chan any, 1)
	c, _ := dialHTTP(t, url, &client.Options{ProtocolVersion: mcp.LatestLegacyVersion,
		OnElicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			var who any
			if rc := transport.RelatedCall(ctx); rc != nil {
				who = rc.Value(callerKey{})
			}
			asked <- who
			return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	held := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.WithValue(ctx, callerKey{}, "hold"), "hold", nil)
		held <- err
	}()
	select {
	case <-holding:
	case <-ctx.Done():
		t.Fatal("the tool call did not start")
	}
	_, err := c.GetPrompt(context.WithValue(ctx, callerKey{}, "prompt"), "ask", nil)
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if who := <-asked; who == "hold" {
		t.Error("the prompt's elicitation came on the stream of the tool call")
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
}
