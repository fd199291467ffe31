package gateway

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonwalk"

	"github.com/winbridge/winbridge/winexec"
)

// argPath is a parsed ToolRule.PathArgs entry: members, each optionally
// followed by "[]" (every element of an array).
type argPath []argStep

type argStep struct {
	name string
	each bool
}

func parseArgPath(s string) (argPath, error) {
	if s == "" {
		return nil, errors.New("empty argument path")
	}
	var p argPath
	for _, part := range strings.Split(s, ".") {
		st := argStep{name: part}
		if n, ok := strings.CutSuffix(part, "[]"); ok {
			st = argStep{name: n, each: true}
		}
		if st.name == "" || strings.ContainsAny(st.name, "[]") {
			return nil, fmt.Errorf("argument path %q: want members separated by dots, each optionally followed by []", s)
		}
		p = append(p, st)
	}
	return p, nil
}

// values calls f with every value at p in args (decoded JSON), with a
// readable location; absent members are skipped. Members match without
// case (see walk).
func (p argPath) values(args any, f func(where string, v any) error) error {
	var walk, member func(v any, i int, where string) error
	walk = func(v any, i int, where string) error {
		if i == len(p) {
			return f(where, v)
		}
		m, ok := v.(map[string]any)
		if !ok {
			if where == "" {
				return nil
			}
			// Something else where the path goes on (an array where
			// "opts.cwd" wants opts to be an object) is refused, as a
			// non-array is for "[]": an upstream that reads opts[0].cwd
			// would get a path nobody checked.
			return fmt.Errorf("%w: argument %s is %s, not an object holding %s", errBadPath, where[1:], jsonwalk.TypeName(v), p[i].name)
		}
		// Every member whose name equals the step's without case:
		// decoders that fill a struct (encoding/json, this module's typed
		// tools) match names so, and a schema that does not close its
		// properties lets {"PATH": …} through to an upstream's "path".
		var keys []string
		for k := range m {
			if strings.EqualFold(k, p[i].name) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := member(m[k], i, where+"."+k); err != nil {
				return err
			}
		}
		return nil
	}
	member = func(mv any, i int, where string) error {
		if mv == nil {
			return nil
		}
		if !p[i].each {
			return walk(mv, i+1, where)
		}
		arr, ok := mv.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array of paths", where[1:])
		}
		for j, e := range arr {
			if err := walk(e, i+1, fmt.Sprintf("%s[%d]", where, j)); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(args, 0, "")
}

// scope binds path arguments to roots.
type scope struct {
	mapper *winexec.PathMapper
	roots  []string // resolved, in WSL form
	mount  string   // the drive mount root, "/mnt/"
}

// errOutside and errBadPath tell the two refusals apart.
var (
	errOutside = errors.New("outside the allowed roots")
	errBadPath = errors.New("not a usable path")
)

func newScope(roots []string, m *winexec.PathMapper) (*scope, error) {
	s := &scope{mapper: m, mount: "/mnt/"}
	if m != nil && m.MountRoot != "" {
		s.mount = strings.TrimSuffix(m.MountRoot, "/") + "/"
	}
	for _, r := range roots {
		canon, err := s.canonical(r)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		s.roots = append(s.roots, canon)
	}
	return s, nil
}

// check returns nil when every reading of p resolves inside a root.
func (s *scope) check(p string) error {
	if p == "" || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%w: empty or contains NUL", errBadPath)
	}
	q := p
	if winexec.IsWindowsPath(p) {
		l, err := s.mapper.WinToWSL(p)
		if err != nil {
			return fmt.Errorf("%w: %v", errBadPath, err)
		}
		q = l
	}
	readings := []string{q}
	if strings.HasPrefix(p, "/") && strings.Contains(p, `\`) {
		// A Linux path with a backslash: q read it as a Windows program
		// would (a separator); a Linux program reads it as part of a
		// name. That reading must stay inside too.
		readings = append(readings, p)
	}
	for _, r := range readings {
		// Each reading twice: as the kernel resolves it (".." from where
		// a link led), and with ".." applied first, lexically, as every
		// Windows program (Win32 path normalization) and many servers
		// (path.resolve, os.path.abspath, filepath.Clean) do before the
		// kernel sees it. With a link two levels down, root/link/../../../x
		// is root/x to the kernel but ../x lexically: both must be inside.
		for _, c := range []string{r, path.Clean(r)} {
			res, err := resolveLinux(c)
			if err != nil {
				return err
			}
			if !s.inside(res) {
				return fmt.Errorf("%w: %q resolves to %q", errOutside, p, res)
			}
		}
	}
	return nil
}

// canonical maps p to WSL form (winexec's mapping), then resolves it.
func (s *scope) canonical(p string) (string, error) {
	q := p
	if winexec.IsWindowsPath(p) {
		l, err := s.mapper.WinToWSL(p)
		if err != nil {
			return "", fmt.Errorf("%w: %v", errBadPath, err)
		}
		q = l
	}
	return resolveLinux(q)
}

// resolveLinux resolves an absolute Linux path as the kernel would:
// component by component, following symbolic links where they exist and
// ".." from wherever a link led. Every component is looked up, even past
// a missing one: ".." can climb back out of a missing name to where links
// exist (the kernel would refuse such a path, a lexical reader would not).
// A dangling link or a link loop is refused: writing through it could
// land anywhere.
func resolveLinux(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%w: %q is not absolute", errBadPath, p)
	}
	cur := "/"
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			cur = next // missing: nothing there is a link yet
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			r, err := filepath.EvalSymlinks(next)
			if err != nil {
				return "", fmt.Errorf("%w: %q: a dangling or looping symbolic link", errBadPath, next)
			}
			cur = r
			continue
		}
		cur = next
	}
	return cur, nil
}

func (s *scope) inside(p string) bool {
	for _, r := range s.roots {
		if within(r, p, s.driveFolded(r)) {
			return true
		}
	}
	return false
}

// driveFolded reports whether r is on a Windows drive (under the mount
// root), where names compare without case.
func (s *scope) driveFolded(r string) bool {
	rest, ok := strings.CutPrefix(r+"/", s.mount)
	return ok && len(rest) >= 2 && rest[1] == '/'
}

func within(root, p string, fold bool) bool {
	eq := func(a, b string) bool { return a == b }
	if fold {
		// Windows upper-cases each character to compare names; Unicode
		// folding also equates characters Windows keeps apart, such as
		// "k" and KELVIN SIGN or "s" and LONG S, which are of another
		// length in UTF-8. Names of other lengths are never equal.
		eq = func(a, b string) bool { return len(a) == len(b) && strings.EqualFold(a, b) }
	}
	if eq(root, p) || root == "/" {
		return true
	}
	return len(p) > len(root) && p[len(root)] == '/' && eq(p[:len(root)], root)
}
