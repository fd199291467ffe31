package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
)

// The official TypeScript SDK client over Streamable HTTP: it initializes,
// lists the tool, runs k, and gets -32602 for an empty command.
func TestTypeScriptClient(t *testing.T) {
	f := newFake(t)
	h := startServer(t, f.cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := peertest.RunNode(t, ctx, "ts-client.mjs", "--url", h.url,
		"--call", `windbg_eval={"command":"k"}`,
		"--call", `windbg_eval={"command":""}`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
		Tools      []string              `json:"tools"`
		Calls      []struct {
			Result *callResult `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("ts-client output %s: %v", out, err)
	}
	if got.ServerInfo.Name != "windbg" || !slices.Equal(got.Tools, []string{ToolName}) || len(got.Calls) != 2 {
		t.Fatalf("ts-client: %s", out)
	}
	if r := got.Calls[0].Result; r == nil || r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "ntdll!NtWaitForSingleObject+0x14") {
		t.Errorf("k: %s", out)
	}
	if e := got.Calls[1].Error; e == nil || e.Code != -32602 {
		t.Errorf("empty command: want -32602; %s", out)
	}
	if cmds := f.commands(t); !slices.Equal(cmds, []string{"k"}) {
		t.Errorf("the fake received %q; want only k", cmds)
	}
}
