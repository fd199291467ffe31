package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/winbridge/winbridge/mcp"
)

// Bus is an mcp.Bus on Redis pub/sub: every replica subscribed to the
// channel "<Prefix>changes" receives each Change published, its own
// included. Pub/sub delivers to those connected: a replica cut off from
// Redis misses what is published meanwhile (its clients then re-list
// or re-read as after any lost notification); go-redis reconnects and
// resubscribes on its own. A PUBLISH whose reply is lost is sent again
// by go-redis, so a change may then arrive twice: a client hears of an
// update twice, which costs it a re-read, where a change never sent
// would leave it stale. The Relay's messages are sent the same way; a
// replica drops a second answer to a request as an answer to none.
type Bus struct {
	s       *Stores
	channel string
	relay   string // the Relay's channel, on the same subscription
	ps      *redis.PubSub
	done    chan struct{}

	mu        sync.Mutex
	subs      map[int]func(mcp.Change)
	receivers map[int]func([]byte)
	next      int
}

// newBus subscribes, and returns once the subscription is active, so that
// a change published after Open returns is not missed.
func newBus(ctx context.Context, s *Stores) (*Bus, error) {
	b := &Bus{s: s, channel: s.key("changes"), relay: s.key("relay"),
		subs: map[int]func(mcp.Change){}, receivers: map[int]func([]byte){}, done: make(chan struct{})}
	b.ps = s.client.Subscribe(ctx, b.channel, b.relay)
	// Before Channel: PubSub's receiving is not safe for concurrent use.
	// One confirmation per channel.
	for range 2 {
		if _, err := b.ps.Receive(ctx); err != nil {
			_ = b.ps.Close()
			return nil, fmt.Errorf("redisstore: subscribing to changes: %w", err)
		}
	}
	go b.run(b.ps.Channel())
	return b, nil
}

func (b *Bus) run(ch <-chan *redis.Message) {
	defer close(b.done)
	for m := range ch {
		if m.Channel == b.relay {
			b.mu.Lock()
			recv := make([]func([]byte), 0, len(b.receivers))
			for _, f := range b.receivers {
				recv = append(recv, f)
			}
			b.mu.Unlock()
			for _, f := range recv {
				f([]byte(m.Payload))
			}
			continue
		}
		var c mcp.Change
		if err := json.Unmarshal([]byte(m.Payload), &c); err != nil {
			b.s.log.Warn("redisstore: ignored a malformed change on the bus", "err", err)
			continue
		}
		b.mu.Lock()
		subs := make([]func(mcp.Change), 0, len(b.subs))
		for _, f := range b.subs {
			subs = append(subs, f)
		}
		b.mu.Unlock()
		for _, f := range subs {
			f(c)
		}
	}
}

// Publish implements mcp.Bus.
func (b *Bus) Publish(ctx context.Context, c mcp.Change) error {
	msg, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := b.s.client.Publish(ctx, b.channel, msg).Err(); err != nil {
		return fmt.Errorf("redisstore: publish: %w", err)
	}
	return nil
}

// Subscribe implements mcp.Bus.
func (b *Bus) Subscribe(deliver func(mcp.Change)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.next
	b.next++
	b.subs[id] = deliver
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

func (b *Bus) close() {
	_ = b.ps.Close()
	<-b.done
}

// Relay is an mcphttp.Relay on the bus's subscription, channel
// "<Prefix>relay": like changes, what is sent while a replica is cut off
// from Redis does not reach it.
type Relay struct{ b *Bus }

// Send implements mcphttp.Relay. It refuses a message larger than
// MaxRelayBytes: published, it would make Redis drop every replica's
// subscription (its pub/sub output buffer limit), and with it what is
// published for every other session until they resubscribe.
func (r *Relay) Send(ctx context.Context, msg []byte) error {
	if max := r.b.s.opts.MaxRelayBytes; len(msg) > max {
		return fmt.Errorf("redisstore: relay: a message of %d bytes is larger than MaxRelayBytes (%d); not sent", len(msg), max)
	}
	if err := r.b.s.client.Publish(ctx, r.b.relay, msg).Err(); err != nil {
		return fmt.Errorf("redisstore: relay: %w", err)
	}
	return nil
}

// Receive implements mcphttp.Relay.
func (r *Relay) Receive(deliver func([]byte)) (stop func()) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.next
	b.next++
	b.receivers[id] = deliver
	return func() {
		b.mu.Lock()
		delete(b.receivers, id)
		b.mu.Unlock()
	}
}
