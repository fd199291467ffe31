package transport

import (
	"encoding/json"
	"unicode/utf8"
)

// JSON-RPC batches. MCP 2025-03-26 allowed a message to be an array of
// requests, notifications and responses, answered with one array of the
// responses; 2025-06-18 removed them. The stream rejects arrays unless the
// protocol above turns batches on for the connection (Conn.AllowBatches).

// AllowBatches turns the acceptance of JSON-RPC batches on or off. mcp
// turns it on for sessions that negotiated protocol revision 2025-03-26.
func (s *Stream) AllowBatches(on bool) {
	s.mu.Lock()
	s.batches = on
	if s.batchOf == nil {
		s.batchOf = map[uint64]*batch{}
	}
	s.mu.Unlock()
}

func (s *Stream) batching() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches
}

// acceptBatch splits a batch into messages for jsonrpc2: the first is
// returned, the others queued to follow it. Invalid elements are answered
// in the batch's response; a batch with nothing to answer gets no response.
// The error is a write failure.
func (s *Stream) acceptBatch(frame []byte) ([]byte, error) {
	if !utf8.Valid(frame) || !json.Valid(frame) {
		return nil, s.writeRaw(appendErrorResponse(nil, ID{}, CodeParseError, "parse error: invalid JSON"))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(frame, &elems); err != nil || len(elems) == 0 {
		return nil, s.writeRaw(appendErrorResponse(nil, ID{}, CodeInvalidRequest, "invalid request: an empty batch"))
	}
	grp := &batch{}
	var msgs [][]byte
	for _, e := range elems {
		s.mu.Lock()
		before := s.nextSlot
		s.mu.Unlock()
		req, resp, rej := s.accept(e, nil)
		if rej != nil {
			grp.replies = append(grp.replies, appendErrorResponse(nil, rej.id, rej.code, rej.message))
			continue
		}
		if req == nil && resp == nil {
			continue
		}
		// Batches are rare: their messages wait as encoded JSON, like
		// other injected messages.
		msg, err := encodeRPC(req, resp)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		if slot := s.nextSlot; slot > before {
			if in := s.inbound[slot]; in != nil && !in.id.IsZero() {
				s.batchOf[slot] = grp
				grp.pending++
			}
		}
		s.mu.Unlock()
		msgs = append(msgs, msg)
	}
	if grp.pending == 0 && len(grp.replies) > 0 {
		if err := s.writeRaw(joinArray(grp.replies)); err != nil {
			return nil, err
		}
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	if len(msgs) > 1 {
		s.mu.Lock()
		s.injected = append(msgs[1:len(msgs):len(msgs)], s.injected...)
		s.mu.Unlock()
	}
	return msgs[0], nil
}

// batchDone records the response (nil for a released request) of the
// batched request slot, and returns the batch's array once every request
// has been answered or released. s.mu is held.
func (s *Stream) batchDone(slot uint64, grp *batch, resp []byte) []byte {
	delete(s.batchOf, slot)
	if resp != nil {
		grp.replies = append(grp.replies, resp)
	}
	grp.pending--
	if grp.pending > 0 || len(grp.replies) == 0 {
		return nil
	}
	return joinArray(grp.replies)
}

func joinArray(parts [][]byte) []byte {
	n := 2
	for _, p := range parts {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return append(b, ']')
}
