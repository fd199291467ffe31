package jsonwalk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrTrailing reports data after the document's one value.
var ErrTrailing = errors.New("more than one JSON value")

// Decode decodes data, which must hold exactly one JSON value, numbers as
// json.Number so that no integer is rounded before it is checked.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, ErrTrailing
	}
	return doc, nil
}

// Located describes err from Decode(data): a syntax error by the line and
// column of the offending byte, as an editor shows them; any other error
// as it is.
func Located(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	line, col := 1, 1
	// Offset counts the offending byte; the column names it.
	for _, c := range data[:max(0, min(int(se.Offset)-1, len(data)))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, se)
}

// TypeName names the JSON type of a value from Decode.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
