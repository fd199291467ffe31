package jsonwalk

import (
	"errors"
	"fmt"
)

// A Walker records the problems found while checking a document. The zero
// value is ready to use.
type Walker struct {
	problems []problem
}

type problem struct{ path, text string }

// Fail records a problem with the value at path.
func (w *Walker) Fail(path, format string, args ...any) {
	w.problems = append(w.problems, problem{path, fmt.Sprintf(format, args...)})
}

// Err joins the problems, in the order they were found, each made an error
// by wrap; nil if there were none.
func (w *Walker) Err(wrap func(path, problem string) error) error {
	errs := make([]error, len(w.problems))
	for i, p := range w.problems {
		errs[i] = wrap(p.path, p.text)
	}
	return errors.Join(errs...)
}

// Object returns v as an object, or records that it is not one.
func (w *Walker) Object(path string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		w.Fail(path, "want object, got %s", TypeName(v))
	}
	return m, ok
}

// Array returns v as an array, or records that it is not one.
func (w *Walker) Array(path string, v any) ([]any, bool) {
	a, ok := v.([]any)
	if !ok {
		w.Fail(path, "want array, got %s", TypeName(v))
	}
	return a, ok
}

// String returns v as a string, or records that it is not one.
func (w *Walker) String(path string, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		w.Fail(path, "want string, got %s", TypeName(v))
	}
	return s, ok
}

// Bool returns v as a boolean, or records that it is not one and returns
// false.
func (w *Walker) Bool(path string, v any) bool {
	b, ok := v.(bool)
	if !ok {
		w.Fail(path, "want boolean, got %s", TypeName(v))
	}
	return b
}
