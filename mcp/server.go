package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// ServerOptions configure a Server. The zero value is ready to use.
type ServerOptions struct {
	// Instructions tell the client's model how to use the server.
	Instructions string
	// Logger receives the server's diagnostics; nil means slog.Default().
	// Over stdio, slog's default handler writes to stderr, never stdout.
	Logger *slog.Logger
	// MaxConcurrency bounds how many tool calls of one session run at once;
	// further calls wait for a slot (a cancelled one stops waiting). Zero
	// means 64.
	MaxConcurrency int
	// PageSize is how many items a list result holds; zero means 100.
	PageSize int
	// Versions are the protocol revisions offered, newest first; nil means
	// SupportedVersions.
	Versions []string
	// CacheTTL is the ttlMs hint of cacheable 2026-07-28 results (tool lists,
	// discovery). Zero tells clients not to cache, which is right while tools
	// may change at run time.
	CacheTTL time.Duration
	// Timeout bounds the server's own requests to the client; zero means
	// transport.DefaultTimeout.
	Timeout time.Duration
}

// Server is an MCP server: a set of tools (and, later, resources and
// prompts) served to any number of sessions, each on its own connection,
// in both protocol eras.
type Server struct {
	impl Implementation
	opts ServerOptions
	log  *slog.Logger

	mu       sync.RWMutex
	tools    map[string]*serverTool
	names    []string // sorted tool names: deterministic lists and cursors
	sessions map[*ServerSession]struct{}
}

// NewServer returns a server that identifies itself as impl.
func NewServer(impl *Implementation, opts *ServerOptions) *Server {
	s := &Server{tools: map[string]*serverTool{}, sessions: map[*ServerSession]struct{}{}}
	if impl != nil {
		s.impl = *impl
	}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxConcurrency <= 0 {
		s.opts.MaxConcurrency = 64
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	if s.opts.Versions == nil {
		s.opts.Versions = SupportedVersions
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// Run serves one connection on stream until the peer closes it or ctx ends.
// It returns nil when the peer went away, ctx.Err() when ctx ended.
func (s *Server) Run(ctx context.Context, stream *transport.Stream) error {
	ss := s.Connect(stream)
	select {
	case <-ss.Done():
		return nil
	case <-ctx.Done():
		ss.Close()
		return ctx.Err()
	}
}

// Connect starts serving a session on stream and returns at once.
func (s *Server) Connect(stream *transport.Stream) *ServerSession {
	ss := newServerSession(s)
	ss.conn = transport.NewConn(stream, ss, &transport.ConnOptions{
		Timeout:   s.opts.Timeout,
		Logger:    s.log,
		Abandoned: NotifyCancelled,
	})
	s.mu.Lock()
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	go func() {
		<-ss.conn.Done()
		ss.closed()
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
	}()
	return ss
}

// Sessions returns the sessions being served.
func (s *Server) Sessions() []*ServerSession {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// NotifyCancelled tells the peer with notifications/cancelled that a request
// was given up. It has the signature of transport.ConnOptions.Abandoned, which
// is where servers and clients install it.
func NotifyCancelled(c *transport.Conn, id transport.ID, method string, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Notify(ctx, "notifications/cancelled", &CancelledParams{RequestID: id.Raw(), Reason: cause.Error()})
}

func (s *Server) capabilities() ServerCapabilities {
	return ServerCapabilities{
		Tools:   &ToolsCapability{ListChanged: true},
		Logging: &struct{}{},
	}
}

func (s *Server) cacheHint() CacheHint {
	return CacheHint{TTLMs: Ptr(s.opts.CacheTTL.Milliseconds()), CacheScope: "public"}
}

// addTool registers st, replacing a tool of the same name.
func (s *Server) addTool(st *serverTool) {
	s.mu.Lock()
	if _, ok := s.tools[st.tool.Name]; !ok {
		i, _ := slices.BinarySearch(s.names, st.tool.Name)
		s.names = slices.Insert(s.names, i, st.tool.Name)
	}
	s.tools[st.tool.Name] = st
	s.mu.Unlock()
	s.changed("notifications/tools/list_changed")
}

// RemoveTools removes the named tools; names not registered are ignored.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	removed := false
	for _, n := range names {
		if _, ok := s.tools[n]; ok {
			delete(s.tools, n)
			i, _ := slices.BinarySearch(s.names, n)
			s.names = slices.Delete(s.names, i, i+1)
			removed = true
		}
	}
	s.mu.Unlock()
	if removed {
		s.changed("notifications/tools/list_changed")
	}
}

// changed tells every initialized legacy session that a list changed.
func (s *Server) changed(method string) {
	for _, ss := range s.Sessions() {
		if ss.initializedLegacy() {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = ss.conn.Notify(ctx, method, &struct{}{})
			}()
		}
	}
}

// listTools returns one page of tools after cursor.
func (s *Server) listTools(cursor string) ([]*Tool, string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", invalidParams("invalid cursor", nil)
		}
		start = sort.SearchStrings(s.names, string(after))
		if start < len(s.names) && s.names[start] == string(after) {
			start++
		}
	}
	end := min(start+s.opts.PageSize, len(s.names))
	tools := make([]*Tool, 0, end-start)
	for _, n := range s.names[start:end] {
		tools = append(tools, s.tools[n].tool)
	}
	next := ""
	if end < len(s.names) {
		next = base64.RawURLEncoding.EncodeToString([]byte(s.names[end-1]))
	}
	return tools, next, nil
}

func (s *Server) tool(name string) (*serverTool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tools[name]
	return t, ok
}

func (s *Server) supports(v string) bool { return slices.Contains(s.opts.Versions, v) }

func (s *Server) unsupported(requested string) *Error {
	return transport.NewError(CodeUnsupportedProtocolVersion, fmt.Sprintf("Unsupported protocol version %q", requested),
		UnsupportedVersionData{Supported: s.opts.Versions, Requested: requested})
}
