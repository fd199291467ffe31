package hdc

import (
	"errors"
	"fmt"
	"strings"
)

// MaxConnectKey is the longest connect key hdc accepts with -t
// (MAX_CONNECTKEY_SIZE in hdc's src/common/define.h).
const MaxConnectKey = 32

// ErrConnectKey is the error CheckConnectKey wraps.
var ErrConnectKey = errors.New("invalid connectKey")

// CheckConnectKey reports whether key can be a device's connect key, passed
// as the value of -t. Real keys are USB serial numbers
// (FMR0223C13000649, 7001005458323933328a01bce01c3800), IP:port for TCP
// devices (192.168.1.2:5555, ::1:5555, fe80::1%eth0:5555) and serial
// ports for UART, optionally with a baud rate (COM5, /dev/ttyUSB0,
// COM5,115200). The grammar is: 1 to MaxConnectKey bytes of ASCII letters,
// digits and . _ : , / % [ ] -, not starting with '-'; and not an hdc
// command, a word of one, or a word starting with "wait", since hdc looks
// for its command among all arguments, -t's value included. No white
// space (hdc re-splits its options on it), no quotes and no shell
// metacharacters.
func CheckConnectKey(key string) error {
	if key == "" || len(key) > MaxConnectKey {
		return fmt.Errorf("%w %q: a key has 1 to %d characters", ErrConnectKey, key, MaxConnectKey)
	}
	if key[0] == '-' {
		return fmt.Errorf("%w %q: a key cannot start with '-'", ErrConnectKey, key)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._:,/%[]-", c) >= 0) {
			return fmt.Errorf("%w %q: %q is not allowed (letters, digits and . _ : , / %% [ ] - only)", ErrConnectKey, key, c)
		}
	}
	if isCommandWord(key) {
		return fmt.Errorf("%w %q: hdc would take it for its command", ErrConnectKey, key)
	}
	return nil
}

// isCommandWord reports a word hdc could read as (part of) its command.
func isCommandWord(w string) bool {
	if strings.HasPrefix(w, "wait") {
		return true
	}
	for _, v := range registeredCommands {
		for f := range strings.FieldsSeq(v) {
			if w == f {
				return true
			}
		}
	}
	return false
}
