package jsonwalk

import (
	"encoding/json"
	"regexp"
	"strconv"
)

// Paths render a member in dotted form when its name is plain, and
// bracketed and quoted otherwise, so that any name reads back
// unambiguously: a.b, a["x.y"], a[""].
var (
	plain  = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	dashed = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)
)

// Member is the path of member name of the object at path: a.b, or
// a["b-c"] when name is not a JavaScript identifier.
func Member(path, name string) string { return member(plain, path, name) }

// DashedMember is Member that also writes names with dashes dotted
// (mcpServers.my-server), as server names usually have them.
func DashedMember(path, name string) string { return member(dashed, path, name) }

func member(re *regexp.Regexp, path, name string) string {
	if re.MatchString(name) {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	q, _ := json.Marshal(name)
	return path + "[" + string(q) + "]"
}

// Index is the path of element i of the array at path: a[3].
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
