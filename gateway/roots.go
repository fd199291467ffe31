package gateway

import (
	"net/url"
	"regexp"

	"github.com/winbridge/winbridge/mcp"
)

// The policy's roots say where path arguments may go. An upstream that
// asks roots/list would otherwise get every root of the client — the
// user's home as likely as the project — and learn of directories the
// policy keeps it out of. So, when the policy declares roots, a forwarded
// roots/list answers with the client's roots that lie inside them (as
// the client wrote them), and with a policy root for each client root
// that holds one; a root outside every policy root, or that is no file
// path, is left out.

// driveURIPath is the path of a file URI of a Windows drive
// (file:///C:/x): a Windows path behind a slash.
var driveURIPath = regexp.MustCompile(`^/[A-Za-z]:(/|$)`)

// narrowRoots returns roots narrowed to the scope's roots; roots as they
// are when the scope has none.
func (s *scope) narrowRoots(roots []*mcp.Root) []*mcp.Root {
	if len(s.roots) == 0 {
		return roots
	}
	out := []*mcp.Root{}
	seen := map[string]bool{}
	add := func(r *mcp.Root) {
		if !seen[r.URI] {
			seen[r.URI] = true
			out = append(out, r)
		}
	}
	for _, r := range roots {
		if r == nil {
			continue
		}
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			continue
		}
		p := u.Path
		if driveURIPath.MatchString(p) {
			p = p[1:] // C:/x, which the scope maps to its WSL form
		}
		if s.check(p) == nil { // every reading inside, as for a path argument
			add(r)
			continue
		}
		canon, err := s.canonical(p)
		if err != nil {
			continue
		}
		for _, pr := range s.roots {
			if within(canon, pr, s.driveFolded(canon)) {
				add(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: pr}).String(), Name: r.Name})
			}
		}
	}
	return out
}
