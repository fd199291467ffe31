package winexec

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// wireRequest is a request as the Bootstrap reads it. Every string is a
// []byte, which encoding/json sends as base64: a JSON reader that turns
// date-looking strings into dates (PowerShell 7's ConvertFrom-Json) finds
// none to turn, so the program gets exactly these bytes.
type wireRequest struct {
	ID        int64    `json:"id"`
	Exe       []byte   `json:"exe"`
	CmdLine   []byte   `json:"cmdline"`
	Cwd       []byte   `json:"cwd,omitempty"`
	Env       [][]byte `json:"env,omitempty"` // K=V each
	Stdin     []byte   `json:"stdin"`
	TimeoutMs int64    `json:"timeoutMs"`
}

// frame is one line the Bootstrap writes.
type frame struct {
	T         string `json:"t"`
	ID        int64  `json:"id"`
	D         []byte `json:"d"`
	Code      int64  `json:"code"`
	TimedOut  bool   `json:"timedOut"`
	Cancelled bool   `json:"cancelled"`
	Ms        int64  `json:"ms"`
	Err       []byte `json:"err"`
	CP        int    `json:"cp"`
	V         int    `json:"v"`
}

const (
	// maxFrameLine bounds one protocol line: a 64 KiB chunk is 87 KiB of
	// base64; anything far longer is not the Bootstrap talking.
	maxFrameLine = 256 << 10
	// maxNoise bounds the non-protocol lines tolerated before giving up
	// (PowerShell may print warnings to stdout before the script runs).
	maxNoise = 64 << 10
)

// parseChunk decodes the bootstrap's output chunk frames,
// {"t":"o","id":N,"d":"BASE64"}, without encoding/json: they carry nearly
// all the bytes, and this halves the work and garbage per byte. Anything
// else is left to encoding/json.
func parseChunk(line []byte) (frame, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"t":"`))
	if !ok || len(rest) < 2 || (rest[0] != 'o' && rest[0] != 'e') {
		return frame{}, false
	}
	kind := rest[0]
	rest, ok = bytes.CutPrefix(rest[1:], []byte(`","id":`))
	if !ok {
		return frame{}, false
	}
	i := bytes.IndexByte(rest, ',')
	if i <= 0 {
		return frame{}, false
	}
	id, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	if err != nil {
		return frame{}, false
	}
	b64, ok := bytes.CutPrefix(rest[i:], []byte(`,"d":"`))
	if !ok {
		return frame{}, false
	}
	b64, ok = bytes.CutSuffix(b64, []byte(`"}`))
	if !ok {
		return frame{}, false
	}
	d := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	n, err := base64.StdEncoding.Decode(d, b64)
	if err != nil {
		return frame{}, false
	}
	return frame{T: string(kind), ID: id, D: d[:n]}, true
}

// frameReader reads frames, skipping a bounded amount of noise.
type frameReader struct {
	r     *bufio.Reader
	buf   []byte // reused line buffer
	noise int
	// onNoise, when set, sees each skipped line (for logs).
	onNoise func(line []byte)
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10)}
}

func (fr *frameReader) next() (frame, error) {
	for {
		line, err := fr.readLine()
		if err != nil {
			return frame{}, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if f, ok := parseChunk(line); ok {
			return f, nil
		}
		if len(line) > 0 && line[0] == '{' {
			var f frame
			if err := json.Unmarshal(line, &f); err == nil && f.T != "" {
				return f, nil
			}
		}
		fr.noise += len(line)
		if fr.onNoise != nil && len(line) > 0 {
			fr.onNoise(line)
		}
		if fr.noise > maxNoise {
			return frame{}, fmt.Errorf("%w: %d bytes of output that is not the bootstrap protocol", ErrProtocol, fr.noise)
		}
	}
}

// readLine returns one line of at most maxFrameLine bytes.
func (fr *frameReader) readLine() ([]byte, error) {
	buf := fr.buf[:0]
	defer func() { fr.buf = buf[:0] }()
	for {
		chunk, err := fr.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxFrameLine {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrProtocol, maxFrameLine)
		}
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		default:
			return nil, err
		}
	}
}
