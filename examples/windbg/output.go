package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
)

// newMarker returns a line no command can print by chance: cdb echoes it
// (".echo MARKER") after each command, so its arrival means the command
// before it has finished.
func newMarker() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "WINDBG_MCP_DONE_" + hex.EncodeToString(b[:])
}

// prompt is the pattern of a cdb prompt: 0:000>, 1:023:x86>, kd>, 0: kd>,
// lkd>.
const prompt = `(?:\d+:\d+(?::\w+)?|(?:\d+: )?l?kd)>`

var (
	leadingPrompt  = regexp.MustCompile(`^` + prompt + ` ?`)
	trailingPrompt = regexp.MustCompile(prompt + ` ?$`)
)

// stripPrompts removes the prompts at the start of a line (cdb prints one
// before reading each line, without a newline, so it prefixes the next
// output) and reports whether there was one.
func stripPrompts(s string) (string, bool) {
	had := false
	for {
		loc := leadingPrompt.FindStringIndex(s)
		if loc == nil || loc[1] == 0 {
			return s, had
		}
		s, had = s[loc[1]:], true
	}
}

// collector gathers the output of one command from cdb's output stream:
// prompts, the echo of the command and of the marker command are dropped,
// the marker line ends it, and at most max bytes are kept.
type collector struct {
	marker  string
	command string
	max     int

	lines   []string
	size    int
	dropped int  // bytes beyond max
	started bool // a line has been seen, so a later one is not the echo
	done    bool
}

func newCollector(marker, command string, max int) *collector {
	return &collector{marker: marker, command: command, max: max}
}

// lineTail is what feed keeps of a line too long to be kept whole: room
// for a prompt, ".echo " and the marker, which may end the line.
const lineTail = 256

// feed takes output and consumes its complete lines; it returns what
// follows the last newline (kept for the next read), or, once the marker
// line is seen, whatever follows it.
func (c *collector) feed(data []byte) (rest []byte) {
	for !c.done {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if len(data)-lineTail > c.max { // not c.max+lineTail, which a huge -max-output overflows
				// The line cannot fit under the cap, so it will be dropped
				// anyway; count it now rather than hold it. Without this a
				// command printing without newlines (.printf in a .for loop)
				// grew the server's memory for as long as it ran.
				c.dropped += len(data) - lineTail
				data = append([]byte(nil), data[len(data)-lineTail:]...)
			}
			return data
		}
		c.line(string(data[:i]))
		data = data[i+1:]
	}
	return data
}

// line handles one complete line.
func (c *collector) line(raw string) {
	s := strings.TrimSuffix(raw, "\r")
	text, prompted := stripPrompts(s)
	first := !c.started
	c.started = true
	switch {
	case text == c.marker:
		c.done = true
		return
	case strings.HasSuffix(s, "> "+c.marker) && !strings.HasSuffix(s, ".echo "+c.marker):
		// Output without a final newline, then the prompt and the marker.
		c.add(trailingPrompt.ReplaceAllString(strings.TrimSuffix(text, c.marker), ""))
		c.done = true
		return
	case prompted && text == "":
		return // an idle prompt
	case prompted && text == ".echo "+c.marker:
		return // the console echoed our marker command
	case prompted && first && c.command != "" && text == strings.TrimSpace(c.command):
		return // the console echoed the command
	}
	c.add(text)
}

// partial adds what was read of an unfinished line, for output that stops
// at a timeout.
func (c *collector) partial(pending []byte) {
	if text, _ := stripPrompts(strings.TrimSuffix(string(pending), "\r")); text != "" {
		c.add(text)
	}
}

// add keeps a line while the output is under the cap; from the first line
// that does not fit, everything is counted as dropped, so what is kept is
// a prefix of the output.
func (c *collector) add(text string) {
	if c.dropped > 0 || c.size+len(text)+1 > c.max {
		c.dropped += len(text) + 1
		return
	}
	c.lines = append(c.lines, text)
	c.size += len(text) + 1
}

// text is the output collected, one line per line, without a final newline.
func (c *collector) text() string { return strings.Join(c.lines, "\n") }
