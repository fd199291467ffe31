package gateway

// Findings of a hostile review of the schema guards (refloop.go,
// validcost.go). Each test fails on the code before its fix. A test that
// would crash the process (a stack overflow is fatal) runs the crashing
// part in a child process (reviewChild); none runs a validation that
// could take long: where the guard lets a value through, the test
// reports it and does not validate.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// reviewChild runs f in a child process (this test binary, this test
// only) and returns its combined output and whether it crashed; in the
// child, it runs f and exits. The child's stack is capped at 64 MB so
// that an overflow comes in well under a second.
func reviewChild(t *testing.T, f func()) (out string, crashed bool) {
	t.Helper()
	if os.Getenv("WINBRIDGE_REVIEW_CHILD") == t.Name() {
		debug.SetMaxStack(64 << 20)
		f()
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := strings.Split(t.Name(), "/")
	for i := range run {
		run[i] = "^" + regexp.QuoteMeta(run[i]) + "$"
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+strings.Join(run, "/"), "-test.count=1")
	cmd.Env = append(os.Environ(), "WINBRIDGE_REVIEW_CHILD="+t.Name())
	b, err := cmd.CombinedOutput()
	return string(b), err != nil
}

// Finding 1: a member given twice, exactly as written, where the last
// copy has no reference (fixed in checkRefs: a keyword that holds
// schemas, given twice, is refused in any schema, since the cost model
// of a schema without references reads the map too: finding 1b). checkRefs decodes into a map (the last copy
// wins) and, seeing no reference, returned before its duplicate check;
// encoding/json decodes the copies into one field, merging them: a
// pointer field (not, if, ...) or a slice element is decoded into again,
// keeping what the first copy set ("$ref"), and a map field keeps the
// first copy's keys. The reference loops at the place, and the first
// call overflowed the stack, ending the process.
var hiddenRefSchemas = []string{
	`{"type":"object","not":{"$ref":"#"},"not":{}}`,
	`{"type":"object","allOf":[{"$ref":"#"}],"allOf":[{}]}`,
	`{"type":"object","dependentSchemas":{"x":{"$ref":"#"}},"dependentSchemas":{}}`,
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/a"}},"properties":{"p":{}},"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
}

func TestReviewDuplicateHidesRef(t *testing.T) {
	for i, s := range hiddenRefSchemas {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			r, err := compileSchema([]byte(s), true)
			if err != nil {
				return // withheld: fixed
			}
			t.Errorf("compiled %s", s)
			// What the first call did, in a child.
			out, crashed := reviewChild(t, func() {
				_ = r.Validate(map[string]any{"x": int64(1), "p": int64(1)})
			})
			if crashed && strings.Contains(out, "stack overflow") {
				t.Errorf("and validating {\"x\":1,\"p\":1} against it overflowed the stack (the child process died)")
			}
		})
	}
	// A member given twice that encoding/json does not merge is still
	// served: a string keyword, a value in default, property names that
	// differ in case (with references too: they were refused before).
	for _, s := range []string{
		`{"type":"object","description":"a","description":"b"}`,
		`{"type":"object","properties":{"a":{"default":{"x":1,"x":2}}}}`,
		`{"type":"object","properties":{"id":{"type":"string"},"ID":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"number"}}}`,
	} {
		if _, err := compileSchema([]byte(s), true); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// TestReviewDuplicateHidesRefCall is finding 1 through the facade: the
// tool must be withheld (answer denied), and the facade must survive.
func TestReviewDuplicateHidesRefCall(t *testing.T) {
	if os.Getenv("WINBRIDGE_REVIEW_CHILD") == "" {
		// The call itself crashed the process before the fix: it runs
		// in a child.
		out, crashed := reviewChild(t, nil)
		if crashed {
			t.Fatalf("the facade's process died:\n%s", reviewCut(out, 1500))
		}
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "dup", Version: "1"}, nil)
	ran := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "dup", InputSchema: json.RawMessage(hiddenRefSchemas[0])}, ran)
	s.AddTool(&mcp.Tool{Name: "out", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(hiddenRefSchemas[1])},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"p":1}`)}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"s": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	debug.SetMaxStack(64 << 20)
	if res, code := f.call(t, "s__dup", json.RawMessage(`{"x":1}`)); code != CodeDenied {
		fmt.Printf("s__dup: %s %q, want denied\n", code, res.TextOf())
		os.Exit(1)
	}
	f.call(t, "s__out", json.RawMessage(`{}`))
}

func reviewCut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Finding 2: the error text. jsonschema-go builds an error for every
// failed branch of an anyOf (it visits them all), prints the value
// there with %v ("type: [[...]] has type array"), and each frame above
// wraps the whole text again ("validating /$defs/n: ..."): the bytes
// built grow with the value's size times its depth times its depth,
// which the count of applications by depth did not see. Measured on the
// code before the fix (one core):
//
//	{"v":[[[…{}…]]]}, 1000 deep (2 KB):              2.7 s, 3.9 GB allocated
//	{"v":[[[…{2000 members}…]]]}, 200 deep (24 KB):   2.4 s, 3.6 GB
//	{"v":[[[…{4000 members}…]]]}, 400 deep (50 KB):  11.2 s, 29.6 GB, 440 MB resident
//
// and growing with the cube of the depth up to the 256 KB the facade
// takes. The schema is an ordinary recursive union (pydantic's
// Union[str, List["N"]]).
const reviewUnion = `{"type":"object","properties":{"v":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/n"}}]}}}`

func reviewChain(depth, members int) string {
	m := make([]string, members)
	for i := range m {
		m[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	return `{"v":` + strings.Repeat("[", depth) + "{" + strings.Join(m, ",") + "}" + strings.Repeat("]", depth) + "}"
}

func TestReviewErrorTextCost(t *testing.T) {
	g := newCostGraph([]byte(reviewUnion))
	for _, c := range []struct{ depth, members int }{{1000, 0}, {200, 2000}, {400, 4000}} {
		if !g.tooCostly(decoded(t, reviewChain(c.depth, c.members))) {
			t.Errorf("%d deep around %d members: not too costly (validating took seconds and gigabytes)", c.depth, c.members)
		}
	}
	// What ordinary arguments look like still passes, and validates fast.
	r, err := compileSchema([]byte(reviewUnion), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{reviewChain(20, 0), reviewChain(50, 0), `{"v":["a",["b",["c"]],` + strings.Repeat(`"x",`, 5000) + `"y"]}`} {
		val := decoded(t, v)
		if g.tooCostly(val) {
			t.Errorf("%.60s…: too costly", v)
			continue
		}
		start := time.Now()
		_ = r.Validate(val)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%.60s…: took %v", v, d)
		}
	}
}

// Finding 3: schemas without references had no guard at all ("a tree:
// each of its schemas applies once at each place, and the cost is
// bounded by the value's size"). But one application costs what the
// schema at it holds (enum scans every entry, each comparison through
// two big.Rat allocations; required lists every missing name in an
// error; patternProperties tries every pattern on every member) and
// what the value there holds (printed into errors, as above): the
// product of the schema's size and the value's. Measured before the
// fix, each on a valid or nearly valid value within the default limits
// (64 KB of schema; the arguments a little over the default 256 KB
// where marked, the time scaling linearly):
//
//	items: {anyOf:[{required:[5000 names]},{}]}, 80000 × {}:    101 s, 37 GB allocated (valid!)
//	items: {enum:[8000 strings]}, 40000 × the last one (280 KB): 38.7 s, 39 GB
//	items: {enum:[10000 numbers]}, 120000 × the last one:       over 300 s
//	patternProperties of 3000 patterns, 20000 members:            4.4 s (valid)
//	anyOf nested 300 deep (9 KB), an object of 2000 members:      3.4 s, 5.1 GB
//	  (no longer compiled: finding 4); 60 deep, 20000 members:    2.6 s
func reviewTreeSchemas() []struct{ schema, value string } {
	list := func(n int, f func(int) string) string {
		s := make([]string, n)
		for i := range s {
			s[i] = f(i)
		}
		return strings.Join(s, ",")
	}
	nested := `{"type":"string"}`
	for range 60 {
		nested = `{"anyOf":[{"type":"string"},` + nested + `]}`
	}
	return []struct{ schema, value string }{
		{`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"required":[` + list(5000, func(i int) string { return fmt.Sprintf(`"r%d"`, i) }) + `]},{}]}}}}`,
			`{"a":[` + list(80000, func(int) string { return "{}" }) + `]}`},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"enum":[` + list(8000, func(i int) string { return fmt.Sprintf(`"%d"`, i) }) + `]}}}}`,
			`{"a":[` + list(40000, func(int) string { return `"7999"` }) + `,"x"]}`},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"enum":[` + list(10000, func(i int) string { return fmt.Sprint(i) }) + `]}}}}`,
			`{"a":[` + list(120000, func(int) string { return `9999` }) + `,-1]}`},
		{`{"type":"object","properties":{"a":{"type":"object","patternProperties":{` + list(3000, func(i int) string { return fmt.Sprintf(`"^p%d$":{}`, i) }) + `}}}}`,
			`{"a":{` + list(20000, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) }) + `}}`},
		{`{"type":"object","properties":{"v":` + nested + `}}`,
			reviewChain(0, 20000)},
	}
}

func TestReviewTreeSchemaCost(t *testing.T) {
	for _, c := range reviewTreeSchemas() {
		if _, err := compileSchema([]byte(c.schema), true); err != nil {
			t.Fatalf("%.80s: %v", c.schema, err)
		}
		if !newCostGraph([]byte(c.schema)).tooCostly(decoded(t, c.value)) {
			t.Errorf("%.80s… with %d bytes of arguments: not too costly (validating took seconds)", c.schema, len(c.value))
		}
	}
}

// TestReviewOrdinaryArguments: what real tools declare (pydantic v1 and
// v2, zod-to-json-schema, zod 4 as the TypeScript SDK lists it) compiles,
// and ordinary arguments, large ones included, are not refused as too
// costly now that every schema is counted and an application costs what
// it holds.
func TestReviewOrdinaryArguments(t *testing.T) {
	pydantic2 := `{"$defs":{"Node":{"properties":{"name":{"title":"Name","type":"string"},"children":{"default":[],"items":{"$ref":"#/$defs/Node"},"title":"Children","type":"array"},"meta":{"anyOf":[{"additionalProperties":true,"type":"object"},{"type":"null"}],"default":null,"title":"Meta"}},"required":["name"],"title":"Node","type":"object"}},"properties":{"root":{"$ref":"#/$defs/Node"},"mode":{"enum":["a","b","c"],"title":"Mode","type":"string"}},"required":["root"],"title":"Args","type":"object"}`
	pydantic1 := `{"title":"Args","type":"object","properties":{"root":{"$ref":"#/definitions/Node"}},"required":["root"],"definitions":{"Node":{"title":"Node","type":"object","properties":{"name":{"title":"Name","type":"string"},"children":{"title":"Children","default":[],"type":"array","items":{"$ref":"#/definitions/Node"}}},"required":["name"]}}}`
	zod3 := `{"type":"object","properties":{"filter":{"$ref":"#/definitions/Filter"},"sort":{"type":"array","items":{"type":"object","properties":{"field":{"type":"string"},"dir":{"type":"string","enum":["asc","desc"]}},"required":["field","dir"],"additionalProperties":false}}},"required":["filter"],"additionalProperties":false,"definitions":{"Filter":{"anyOf":[{"type":"object","properties":{"and":{"type":"array","items":{"$ref":"#/definitions/Filter"}}},"required":["and"],"additionalProperties":false},{"type":"object","properties":{"or":{"type":"array","items":{"$ref":"#/definitions/Filter"}}},"required":["or"],"additionalProperties":false},{"type":"object","properties":{"field":{"type":"string"},"op":{"type":"string","enum":["eq","ne","lt","gt","in"]},"value":{"type":["string","number","boolean","null"]}},"required":["field","op","value"],"additionalProperties":false}]}},"$schema":"http://json-schema.org/draft-07/schema#"}`
	zod4 := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"default":10,"type":"integer","minimum":1,"maximum":100},"tags":{"type":"array","items":{"type":"string"}},"text":{"type":"string"},"tree":{"$ref":"#/$defs/__schema0"}},"required":["query"],"additionalProperties":false,"$defs":{"__schema0":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/__schema0"}}},"required":["label","children"],"additionalProperties":false}}}`
	zones := make([]string, 600)
	for i := range zones {
		zones[i] = fmt.Sprintf(`"Area/City_%d"`, i)
	}
	tz := `{"type":"object","properties":{"zones":{"type":"array","items":{"type":"string","enum":[` + strings.Join(zones, ",") + `]}}}}`

	var node func(d int) string // a pydantic Node, two children a level
	node = func(d int) string {
		if d == 0 {
			return `{"name":"leaf","meta":{"k":"v"}}`
		}
		return `{"name":"n","meta":null,"children":[` + node(d-1) + "," + node(d-1) + `]}`
	}
	var filter func(d int) string // a zod Filter, three branches a level
	filter = func(d int) string {
		if d == 0 {
			return `{"field":"f","op":"eq","value":1}`
		}
		return `{"and":[` + filter(d-1) + "," + filter(d-1) + `,{"or":[` + filter(d-1) + `]}]}`
	}
	var tree func(d int) string
	tree = func(d int) string {
		if d == 0 {
			return `{"label":"x","children":[]}`
		}
		return `{"label":"x","children":[` + tree(d-1) + "," + tree(d-1) + `]}`
	}
	sort := `[` + strings.Repeat(`{"field":"a","dir":"asc"},`, 999) + `{"field":"b","dir":"desc"}]`
	tags := `[` + strings.Repeat(`"tag",`, 9999) + `"tag"]`
	cases := []struct{ schema, value string }{
		{pydantic2, `{"root":` + node(10) + `,"mode":"b"}`}, // 2047 nodes, 11 deep
		{pydantic2, `{"root":` + node(3) + `,"mode":"z"}`},  // invalid: the error is built
		{pydantic1, `{"root":` + strings.Repeat(`{"name":"n","children":[`, 60) + `{"name":"x"}` + strings.Repeat("]}", 60) + `}`},
		{zod3, `{"filter":` + filter(4) + `,"sort":` + sort + `}`}, // 3^5 filters, 1000 sorts
		{zod3, `{"filter":` + filter(3) + `,"sort":[{"field":"a","dir":"up"}]}`},
		{zod4, `{"query":"q","limit":5,"tags":` + tags + `,"tree":` + tree(9) + `}`},
		{zod4, `{"query":"q","text":"` + strings.Repeat("lorem ipsum ", 20000) + `"}`}, // 240 KB of text
		{tz, `{"zones":[` + strings.Repeat(`"Area/City_599",`, 999) + `"Area/City_0"]}`},
	}
	for _, c := range cases {
		r, err := compileSchema([]byte(c.schema), true)
		if err != nil {
			t.Errorf("%.60s… withheld: %v", c.schema, err)
			continue
		}
		v := decoded(t, c.value)
		cc := costCounter{g: newCostGraph([]byte(c.schema)), budget: maxValidationCost}
		cc.count(0, v, 1, 1, false)
		t.Logf("%.40s… with %d bytes: %.2f of the bound", c.schema, len(c.value), float64(maxValidationCost-cc.budget+cc.final)/maxValidationCost)
		if newCostGraph([]byte(c.schema)).tooCostly(v) {
			t.Errorf("%.60s… with %.60s… (%d bytes): too costly", c.schema, c.value, len(c.value))
			continue
		}
		start := time.Now()
		_ = r.Validate(v)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%.60s… with %.60s…: validating took %v", c.schema, c.value, d)
		}
	}
}

// Finding 4: compiling cost the schema's size times its depth
// (jsonschema-go decodes each schema's text again for each schema
// around it): {"not":{"not":...}} 4000 deep (32 KB) took 4.6 s and 3.3
// GB, 10000 deep about half a minute, once for each distinct schema an
// upstream lists. A schema nested past maxSchemaNesting is not compiled.
func TestReviewDeepSchemaCompile(t *testing.T) {
	deep := `{"type":"object","properties":{"a":` + strings.Repeat(`{"not":`, 4000) + "{}" + strings.Repeat("}", 4000) + `}}`
	start := time.Now()
	_, err := compileSchema([]byte(deep), true)
	if err == nil {
		t.Errorf("a schema 4000 deep compiled, in %v", time.Since(start))
	}
	ok := `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"array","items":`, 60) + "{}" + strings.Repeat("}", 60) + `}}`
	if _, err := compileSchema([]byte(ok), true); err != nil {
		t.Errorf("60 levels of items: %v", err)
	}
}

// Finding 5: where float64 misjudges a multipleOf that decides a branch
// (pydantic's Decimal: anyOf of a number with multipleOf and a string),
// the instance is validated against a copy of the schema whose enum
// names every misjudged number of the instance (exactSchema), and every
// number is compared with all of them: quadratic in the arguments, and
// counted on the model of the schema without that enum. Valid prices,
// before the fix: 4000 (27 KB) took 2 s, 16000 (120 KB) 33 s.
func reviewPrices(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"prices":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%d.%02d", i/7+1, (i*37)%100)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func TestReviewExactMultipleCost(t *testing.T) {
	schema := `{"type":"object","properties":{"prices":{"type":"array","items":{"anyOf":[{"type":"number","multipleOf":0.01},{"type":"string"}]}}}}`
	compiled, mul := compileMultiples([]byte(schema))
	if mul == nil {
		t.Fatal("no multipleOf check")
	}
	for _, c := range []struct {
		n      int
		costly bool
	}{{16000, true}, {200, false}} {
		raw := reviewPrices(c.n)
		fix, err := mul.check(raw, "argument")
		if fix == nil || err != nil {
			t.Fatalf("%d prices: no exact schema (%v)", c.n, err)
		}
		r, cost, err := mul.exactSchema(fix, true)
		if err != nil {
			t.Fatal(err)
		}
		v := decoded(t, string(raw))
		if got := cost.tooCostly(v); got != c.costly {
			t.Errorf("%d prices: too costly %v, want %v (the model of the schema without the enum: %v)", c.n, got, c.costly, newCostGraph(compiled).tooCostly(v))
		}
		if !c.costly {
			start := time.Now()
			if err := r.Validate(v); err != nil || time.Since(start) > time.Second {
				t.Errorf("%d prices: %v in %v", c.n, err, time.Since(start))
			}
		}
	}
}

// Finding 6: the count itself went through every member of an object
// for every application of a schema with properties, charging nothing
// for a member no property names: an anyOf of 1000 branches of
// properties against an object of 20000 members made the count (not the
// validation, which looks properties up) take that product of steps.
func TestReviewCountSteps(t *testing.T) {
	branches := make([]string, 3000)
	for i := range branches {
		branches[i] = fmt.Sprintf(`{"properties":{"p%d":{"type":"string"}}}`, i)
	}
	schema := `{"type":"object","properties":{"a":{"anyOf":[` + strings.Join(branches, ",") + `]}}}`
	members := make([]string, 20000)
	for i := range members {
		members[i] = fmt.Sprintf(`"k%d":0`, i)
	}
	v := decoded(t, `{"a":{`+strings.Join(members, ",")+`}}`)
	g := newCostGraph([]byte(schema))
	start := time.Now()
	for range 10 {
		g.tooCostly(v)
	}
	// Before: about 150 ms a count; now microseconds.
	if d := time.Since(start) / 10; d > 50*time.Millisecond {
		t.Errorf("counting took %v", d)
	}
}

// Finding 1b: with every schema counted (finding 3), a copy hidden by a
// member given twice hid its cost too: the map the model reads keeps the
// last "properties", encoding/json merges both. The schema is refused
// now; before, it compiled and its model saw nothing to count.
func TestReviewDuplicateHidesCost(t *testing.T) {
	c := reviewTreeSchemas()[0] // items {anyOf:[{required:[5000]},{}]}
	hidden := strings.Replace(c.schema, `{"type":"object",`, `{"type":"object","properties":{},`, 1)
	hidden = strings.TrimSuffix(hidden, "}") + `,"properties":{}}`
	if _, err := compileSchema([]byte(hidden), true); err == nil {
		t.Errorf("compiled %.80s…, whose model counts %v", hidden, newCostGraph([]byte(hidden)).tooCostly(decoded(t, c.value)))
	}
}

// Finding 7: work an application does on the value there whatever the
// outcome, which the model charged only under anyOf and the like (as
// error text) or not at all. Measured before the fix, valid values:
//
//	uniqueItems on arrays 200 deep, each holding the next and 0, the
//	innermost an object of 20000 members (278 KB): 4.0 s; 900 deep 19 s.
//	(Each level hashes the whole subtree: names sorted, a big.Rat for
//	each number.)
//	1000 allOf/$ref frames around an object of 20000 members: 1.3 s
//	(each frame copies the set of evaluated members up).
func TestReviewValueWork(t *testing.T) {
	members := make([]string, 20000)
	for i := range members {
		members[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	obj := "{" + strings.Join(members, ",") + "}"
	unique := `{"type":"object","properties":{"v":{"$ref":"#/$defs/n"}},"$defs":{"n":{"uniqueItems":true,"items":{"$ref":"#/$defs/n"}}}}`
	if newCostGraph([]byte(unique)).tooCostly(decoded(t, `{"v":`+strings.Repeat("[", 200)+obj+strings.Repeat(",0]", 200)+"}")) == false {
		t.Error("uniqueItems 200 deep around 20000 members: not too costly (took 4 s)")
	}
	var defs []string
	for i := range 1000 {
		defs = append(defs, fmt.Sprintf(`"a%d":{"allOf":[{"$ref":"#/$defs/a%d"}]}`, i, i+1))
	}
	defs = append(defs, `"a1000":{"additionalProperties":{}}`)
	chain := `{"type":"object","properties":{"v":{"$ref":"#/$defs/a0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	if _, err := compileSchema([]byte(chain), true); err != nil {
		t.Fatal(err)
	}
	if !newCostGraph([]byte(chain)).tooCostly(decoded(t, `{"v":`+obj+`}`)) {
		t.Error("1000 frames around 20000 members: not too costly (took 1.3 s)")
	}
	// Ordinary: unique tags, a pattern on a long string.
	ok := `{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true,"items":{"type":"string","pattern":"^[a-z0-9-]+$"}},"body":{"type":"string","maxLength":300000}}}`
	tags := make([]string, 5000)
	for i := range tags {
		tags[i] = fmt.Sprintf(`"tag-%d"`, i)
	}
	if newCostGraph([]byte(ok)).tooCostly(decoded(t, `{"tags":[`+strings.Join(tags, ",")+`],"body":"`+strings.Repeat("x", 200000)+`"}`)) {
		t.Error("5000 unique tags and a 200 KB body: too costly")
	}
}

// Finding 8: a failure that ends validation was not counted at all, but
// its text is wrapped by every frame above it, each adding its name: at
// the end of a chain of 8000 $refs in a row (a 256 KB schema, which
// lists as {"type":"string"}), any failing call ({"v":1}) built 1.5 GB
// of text in 1.1 s.
func TestReviewFailureChain(t *testing.T) {
	var defs []string
	for i := range 8000 {
		defs = append(defs, fmt.Sprintf(`"a%d":{"$ref":"#/$defs/a%d"}`, i, i+1))
	}
	defs = append(defs, `"a8000":{"type":"string"}`)
	schema := `{"type":"object","properties":{"v":{"$ref":"#/$defs/a0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	if _, err := compileSchema([]byte(schema), true); err != nil {
		t.Fatal(err)
	}
	if !newCostGraph([]byte(schema)).tooCostly(decoded(t, `{"v":1}`)) {
		t.Error("a failure at the end of 8000 $refs: not too costly (1.5 GB of error text)")
	}
}
