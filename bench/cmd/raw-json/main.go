// Command raw-json is the raw+json baseline: it decodes each line of stdin
// as a JSON-RPC tools/call request with encoding/json and encodes a
// tools/call result, with no MCP library. "echo" is answered inline, in
// order; "sleep" is answered from its own goroutine, so blocking calls run
// in parallel.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"sync"
	"time"
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			Text string `json:"text"`
			Ms   int    `json:"ms"`
		} `json:"arguments"`
	} `json:"params"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  struct {
		Content []content `json:"content"`
	} `json:"result"`
}

func main() {
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	var mu sync.Mutex
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	reply := func(req *request, text string) {
		resp := response{JSONRPC: "2.0", ID: req.ID}
		resp.Result.Content = []content{{Type: "text", Text: text}}
		b, _ := json.Marshal(&resp)
		mu.Lock()
		w.Write(append(b, '\n'))
		w.Flush()
		mu.Unlock()
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			continue
		}
		if req.Params.Name == "sleep" {
			go func() {
				time.Sleep(time.Duration(req.Params.Arguments.Ms) * time.Millisecond)
				reply(&req, "ok")
			}()
			continue
		}
		reply(&req, req.Params.Arguments.Text)
	}
}
