package schematest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/winbridge/winbridge/mcp"
)

// Source is what the Go files of a package say about descriptions.
type Source struct {
	// Tags holds, by JSON name, the SourceDescription of every struct
	// field that has one.
	Tags map[string][]string
	text string // the files, for schemas written as JSON literals
}

// SourceTags reads the Go files of dir (tests left out): the way to check
// tools whose argument types are declared inside functions, out of
// reflect's reach.
func SourceTags(dir string) (*Source, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	var text strings.Builder
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		text.Write(b)
		f, err := parser.ParseFile(fset, name, b, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil || len(field.Names) == 0 {
				return true
			}
			raw, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return true
			}
			sf := reflect.StructField{Name: field.Names[0].Name, Tag: reflect.StructTag(raw)}
			d := SourceDescription(sf)
			if d == "" {
				return true
			}
			jn, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if jn == "" {
				jn = sf.Name
			}
			out[jn] = append(out[jn], d)
			return true
		})
	}
	return &Source{Tags: out, text: text.String()}, nil
}

// AgainstSource reports every property description in the listed tools'
// schemas that is neither the source description of a field of its name
// nor a JSON string of the source (a schema written as a literal), and
// every source description no listed schema carries.
func AgainstSource(tools []*mcp.Tool, source *Source) []string {
	src := source.Tags
	var bad []string
	seen := map[string]bool{}
	var walk func(tool string, s any)
	walk = func(tool string, s any) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for name, p := range props {
				d, _ := p.(map[string]any)["description"].(string)
				if d == "" {
					continue
				}
				q, _ := json.Marshal(d)
				if want := src[name]; !slices.Contains(want, d) && !strings.Contains(source.text, string(q)) {
					bad = append(bad, fmt.Sprintf("%s: property %s: description %q, the source has %q", tool, name, d, want))
				}
				seen[d] = true
			}
		}
		for _, v := range m {
			switch v := v.(type) {
			case map[string]any:
				walk(tool, v)
			case []any:
				for _, e := range v {
					walk(tool, e)
				}
			}
		}
	}
	for _, tl := range tools {
		for _, raw := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
			var s any
			if len(raw) > 0 && json.Unmarshal(raw, &s) == nil {
				walk(tl.Name, s)
			}
		}
	}
	for name, ds := range src {
		for _, d := range ds {
			if !seen[d] {
				bad = append(bad, fmt.Sprintf("field %s: the source description %q is in no listed schema", name, d))
			}
		}
	}
	slices.Sort(bad)
	return bad
}
