package httpserve

import (
	"context"
	"log/slog"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// Replicas are the stores through which several processes of one server,
// behind a load balancer, serve as one (docs/DEPLOY.md):
// redisstore.Stores.
type Replicas interface {
	ServerOptions(*mcp.ServerOptions)
	HandlerOptions(*mcphttp.HandlerOptions)
	Close() error
}

// OpenRedis opens the Redis stores at a URL. It is nil unless the command
// was built by scripts/build-redis: the Redis client lives in the nested
// module mcp/mcphttp/redisstore, so that the library's go.mod never names
// it, and that script lays a file that sets OpenRedis into the command.
var OpenRedis func(ctx context.Context, url string, log *slog.Logger) (Replicas, error)

// OpenReplicas opens the stores of c.Redis, if set, for ServerOptions
// and Endpoint.Options; the caller closes what it returns (nil when
// c.Redis is empty). The URL may hold a password: it appears in no error.
func (c *Config) OpenReplicas(ctx context.Context, log *slog.Logger) (Replicas, error) {
	if c.Redis == "" {
		return nil, nil
	}
	if c.Addr == "" {
		return nil, configErrorf("-redis shares the state of HTTP replicas; it needs -http")
	}
	if OpenRedis == nil {
		return nil, configErrorf("-redis: this build has no Redis support; build the command with scripts/build-redis (docs/DEPLOY.md)")
	}
	r, err := OpenRedis(ctx, c.Redis, log)
	if err != nil {
		return nil, err
	}
	c.replicas = r
	return r, nil
}

// ServerOptions sets the bus and keyring of the replicas, if any.
func (c *Config) ServerOptions(o *mcp.ServerOptions) {
	if c.replicas != nil {
		c.replicas.ServerOptions(o)
	}
}
