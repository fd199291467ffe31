package transport

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Error is a JSON-RPC error object: what a peer answered instead of a
// result, or what a handler answers to refuse a request. Callers branch on
// it with errors.As.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string {
	if len(e.Data) > 0 && len(e.Data) <= 256 {
		return fmt.Sprintf("jsonrpc error %d: %s (data: %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// NewError returns an Error whose data is the JSON encoding of data (no
// data when data is nil).
func NewError(code int64, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if data != nil {
		if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}

// ErrTimeout reports a call that got no response within the connection's
// default timeout. Errors that wrap it also match context.DeadlineExceeded.
var ErrTimeout = errors.New("call timed out")
