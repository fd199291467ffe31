package httpserve

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// -redis in a build without Redis, or without -http, is a settings error
// that says what to do; the URL (which may hold a password) is not in it.
func TestOpenReplicasRefusals(t *testing.T) {
	if OpenRedis != nil {
		t.Skip("this test binary was built with Redis")
	}
	c := &Config{Redis: "redis://:secret@host:6379"}
	if _, err := c.OpenReplicas(context.Background(), nil); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "-http") {
		t.Fatalf("-redis without -http: %v", err)
	}
	c.Addr = "127.0.0.1:0"
	_, err := c.OpenReplicas(context.Background(), nil)
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "scripts/build-redis") {
		t.Fatalf("-redis in a build without Redis: %v", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Fatalf("the error shows the URL's password: %v", err)
	}
	if r, err := (&Config{}).OpenReplicas(context.Background(), nil); r != nil || err != nil {
		t.Fatalf("no -redis: %v, %v", r, err)
	}
}
