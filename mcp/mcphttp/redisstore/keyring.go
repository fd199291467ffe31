package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Keyring is an mcp.Keyring on Redis: the list "<Prefix>keys" holds the
// keys that seal requestState, newest first, each with the time from
// which it seals. Every replica reloads it every Refresh; Rotate adds a
// key that seals only 2×Refresh later, once every replica accepts it.
// The list holds at most Keep keys; older ones are retired (state they
// sealed is refused). Rotate refuses to add a key while the last one it
// added does not seal yet (ErrRotateTooSoon), so that the key sealing
// is never retired before its successor seals.
type Keyring struct {
	s    *Stores
	stop chan struct{}
	done chan struct{}

	mu   sync.RWMutex
	keys [][]byte // the sealing key first
}

// ensureKeys creates the first key if there is none (a new Redis, or one
// that restarted without persistence), atomically, so that replicas
// starting together agree on it; it returns the list.
var ensureKeys = redis.NewScript(`
if redis.call('LLEN', KEYS[1]) == 0 then
  redis.call('RPUSH', KEYS[1], ARGV[1])
end
return redis.call('LRANGE', KEYS[1], 0, -1)
`)

// rotateKey adds a key (ARGV[1]) and retires the oldest beyond Keep
// (ARGV[2]), unless the newest key's time to seal is still after ARGV[3]
// (now, in Unix milliseconds): it returns false then, adding nothing.
// Checked here, atomically, since two replicas may rotate at once. It
// returns the keys.
//
// A list that holds ARGV[1] already is returned as it is: go-redis sends
// the script again after its reply was lost, and the run that added the
// key would otherwise be refused by its own key, not sealing yet. The
// entry is random, so no other rotation adds the same.
var rotateKey = redis.NewScript(`
local list = redis.call('LRANGE', KEYS[1], 0, -1)
for _, e in ipairs(list) do
  if e == ARGV[1] then
    return list
  end
end
local newest = list[1]
if newest then
  local from = tonumber(string.match(newest, '^(-?%d+):'))
  if from and from > tonumber(ARGV[3]) then
    return false
  end
end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return redis.call('LRANGE', KEYS[1], 0, -1)
`)

// ErrRotateTooSoon is returned by Keyring.Rotate while the key the last
// rotation added does not seal yet: rotating again would retire the key
// that seals now before its successor does, leaving no key to seal
// with, or stage keys that no replica has loaded.
var ErrRotateTooSoon = errors.New("redisstore: the last rotated requestState key does not seal yet; rotate at most every 2×Refresh")

func newKeyring(ctx context.Context, s *Stores) (*Keyring, error) {
	k := &Keyring{s: s, stop: make(chan struct{}), done: make(chan struct{})}
	if err := k.refresh(ctx); err != nil {
		return nil, err
	}
	go k.run()
	return k, nil
}

func newEntry(from time.Time) (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	return strconv.FormatInt(from.UnixMilli(), 10) + ":" + base64.RawStdEncoding.EncodeToString(key), nil
}

// refresh loads the keys, creating the first if Redis has none.
func (k *Keyring) refresh(ctx context.Context) error {
	first, err := newEntry(time.Time{})
	if err != nil {
		return err
	}
	list, err := ensureKeys.Run(ctx, k.s.client, []string{k.s.key("keys")}, first).StringSlice()
	if err != nil {
		return fmt.Errorf("redisstore: loading the requestState keys: %w", err)
	}
	return k.set(list)
}

// set orders the entries: the newest key whose time has come seals; all
// are accepted, so that one about to seal is known before it does.
func (k *Keyring) set(list []string) error {
	now := time.Now().UnixMilli()
	var sealing []byte
	var rest [][]byte
	for _, e := range list {
		from, b64, ok := strings.Cut(e, ":")
		ms, err1 := strconv.ParseInt(from, 10, 64)
		key, err2 := base64.RawStdEncoding.DecodeString(b64)
		if !ok || err1 != nil || err2 != nil || len(key) < 16 {
			return fmt.Errorf("redisstore: a requestState key in Redis is malformed")
		}
		if sealing == nil && ms <= now {
			sealing = key
			continue
		}
		rest = append(rest, key)
	}
	if sealing == nil {
		return fmt.Errorf("redisstore: no requestState key seals yet")
	}
	k.mu.Lock()
	k.keys = append([][]byte{sealing}, rest...)
	k.mu.Unlock()
	return nil
}

func (k *Keyring) run() {
	defer close(k.done)
	t := time.NewTicker(k.s.opts.Refresh)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), k.s.opts.Refresh)
			if err := k.refresh(ctx); err != nil {
				// The keys loaded last stay in use.
				k.s.log.Warn("redisstore: refreshing the requestState keys failed", "err", err)
			}
			cancel()
		}
	}
}

// StateKeys implements mcp.Keyring.
func (k *Keyring) StateKeys() [][]byte {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.keys
}

// Rotate adds a new random key, which seals from 2×Refresh on, and
// retires the oldest keys beyond Keep. While the key the last rotation
// added does not seal yet, it adds none and returns ErrRotateTooSoon;
// a rotation sent again after its reply was lost is not refused so, as
// the key is its own.
func (k *Keyring) Rotate(ctx context.Context) error {
	now := time.Now()
	e, err := newEntry(now.Add(2 * k.s.opts.Refresh))
	if err != nil {
		return err
	}
	list, err := rotateKey.Run(ctx, k.s.client, []string{k.s.key("keys")}, e, k.s.opts.Keep, now.UnixMilli()).StringSlice()
	if errors.Is(err, redis.Nil) {
		return ErrRotateTooSoon
	}
	if err != nil {
		return fmt.Errorf("redisstore: rotating the requestState keys: %w", err)
	}
	return k.set(list)
}

func (k *Keyring) close() {
	close(k.stop)
	<-k.done
}
