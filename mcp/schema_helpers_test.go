package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The official MCP schemas and example messages are reference material, not
// part of this repository. The tests that validate wire messages against them
// look in WINBRIDGE_MCP_SCHEMA_DIR, else in ../shared/mcp-schema beside the
// repository (where this project's CI keeps them). Laid out as
// <dir>/<revision>/schema.json and <dir>/2026-07-28/examples/<Type>/*.json,
// they come unchanged from the specification repository,
// https://github.com/modelcontextprotocol/modelcontextprotocol, directory
// schema/.
const (
	schemaDirEnv     = "WINBRIDGE_MCP_SCHEMA_DIR"
	requireSchemaEnv = "WINBRIDGE_REQUIRE_SCHEMAS"
)

// peerSchemaDir is the directory the schema tests read.
var peerSchemaDir = func() string {
	if d := os.Getenv(schemaDirEnv); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "mcp-schema")
}()

// schemaHowTo says where to get the schemas and how to point the tests at
// them; scripts/test prints the same notice when it finds none.
const schemaHowTo = "get them from https://github.com/modelcontextprotocol/modelcontextprotocol " +
	"(directory schema/: <revision>/schema.json and 2026-07-28/examples/) and set " +
	schemaDirEnv + " to that directory"

// requirePeers skips the test when the official schemas are missing, saying
// where to get them; with WINBRIDGE_REQUIRE_SCHEMAS=1 (CI) it fails instead.
// The schemas are not a peer the setup script can install, so
// WINBRIDGE_REQUIRE_PEERS alone does not make their absence a failure: a
// fresh clone must pass its test command.
func requirePeers(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv(requireSchemaEnv) == "1" {
			t.Fatalf("official MCP schemas not found at %s (%s=1): %v; %s", path, requireSchemaEnv, err, schemaHowTo)
		}
		t.Skipf("official MCP schemas not found at %s; %s", path, schemaHowTo)
	}
}

// schemaRevisions are the protocol revisions with an official schema, oldest
// first.
var schemaRevisions = []string{Version20241105, Version20250326, Version20250618, Version20251125, Version20260728}

// revSchema is one revision's schema.json, able to validate an instance
// against any of its definitions.
type revSchema struct {
	rev     string
	version string // $schema
	defsKey string // "definitions" (draft-07) or "$defs" (2020-12)
	raw     map[string]any

	once sync.Once
	defs map[string]*jsonschema.Schema // lax: the schema as published
	err  error

	strictOnce sync.Once
	strictDefs map[string]*jsonschema.Schema
	strictErr  error

	mu       sync.Mutex
	resolved map[string]*jsonschema.Resolved
}

var (
	schemasMu sync.Mutex
	schemas   = map[string]*revSchema{}
)

// schemaFor loads the schema of revision rev (once per test binary).
func schemaFor(t testing.TB, rev string) *revSchema {
	t.Helper()
	requirePeers(t, peerSchemaDir)
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if s, ok := schemas[rev]; ok {
		return s
	}
	b, err := os.ReadFile(filepath.Join(peerSchemaDir, rev, "schema.json"))
	if err != nil {
		t.Fatalf("reading the %s schema: %v", rev, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("parsing the %s schema: %v", rev, err)
	}
	s := &revSchema{rev: rev, raw: raw, resolved: map[string]*jsonschema.Resolved{}}
	s.version, _ = raw["$schema"].(string)
	s.defsKey = "$defs"
	if _, ok := raw["definitions"]; ok {
		s.defsKey = "definitions"
	}
	schemas[rev] = s
	return s
}

// has reports whether the revision defines def.
func (s *revSchema) has(def string) bool {
	defs, _ := s.raw[s.defsKey].(map[string]any)
	_, ok := defs[def]
	return ok
}

func decodeDefs(defs any) (map[string]*jsonschema.Schema, error) {
	b, err := json.Marshal(defs)
	if err != nil {
		return nil, err
	}
	var out map[string]*jsonschema.Schema
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// validator returns the resolved schema {"$ref": "#/<defs>/<def>"} with the
// revision's definitions beside it, so that references between definitions
// resolve, in draft-07 and in 2020-12 alike. Strict validators forbid
// members a definition does not declare (see strictify).
func (s *revSchema) validator(def string, strict bool) (*jsonschema.Resolved, error) {
	key := def
	if strict {
		key += "/strict"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.resolved[key]; ok {
		return r, nil
	}
	var defs map[string]*jsonschema.Schema
	if strict {
		s.strictOnce.Do(func() {
			s.strictDefs, s.strictErr = decodeDefs(strictify(cloneJSON(s.raw[s.defsKey]), "", false))
		})
		defs, _ = s.strictDefs, s.strictErr
		if s.strictErr != nil {
			return nil, s.strictErr
		}
	} else {
		s.once.Do(func() { s.defs, s.err = decodeDefs(s.raw[s.defsKey]) })
		if s.err != nil {
			return nil, s.err
		}
		defs = s.defs
	}
	// Only the definitions def refers to, directly or not: resolving
	// checks every schema under the root, and the whole set is large.
	needed := map[string]*jsonschema.Schema{}
	s.refClosure(def, needed, defs)
	root := &jsonschema.Schema{Schema: s.version, Ref: "#/" + s.defsKey + "/" + def}
	if s.defsKey == "definitions" {
		root.Definitions = needed
	} else {
		root.Defs = needed
	}
	r, err := root.Resolve(nil)
	if err != nil {
		return nil, err
	}
	s.resolved[key] = r
	return r, nil
}

// refClosure adds def and the definitions it refers to, transitively, from
// all to out.
func (s *revSchema) refClosure(def string, out, all map[string]*jsonschema.Schema) {
	if _, ok := out[def]; ok {
		return
	}
	out[def] = all[def]
	rawDefs, _ := s.raw[s.defsKey].(map[string]any)
	prefix := "#/" + s.defsKey + "/"
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if ref, ok := e.(string); ok && k == "$ref" && strings.HasPrefix(ref, prefix) {
					s.refClosure(strings.TrimPrefix(ref, prefix), out, all)
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(rawDefs[def])
}

// validate validates v, a Go value or raw JSON, against definition def. It
// goes through JSON so that what is checked is what would be sent.
func (s *revSchema) validate(def string, v any, strict bool) error {
	r, err := s.validator(def, strict)
	if err != nil {
		return err
	}
	inst, err := toJSONValue(v)
	if err != nil {
		return err
	}
	return r.Validate(inst)
}

// toJSONValue encodes v and decodes it as a generic JSON value.
func toJSONValue(v any) (any, error) {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	var out any
	err := json.Unmarshal(b, &out)
	return out, err
}

// allowMeta declares _meta in a closed params schema: every request and
// notification may carry it, though older schemas declare it only on the
// generic Request and Notification.
func allowMeta(v any) {
	m, _ := v.(map[string]any)
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props["_meta"]; !ok {
			props["_meta"] = map[string]any{"type": "object"}
		}
	}
}

// strictify closes every object schema that declares properties but says
// nothing of others (additionalProperties: false), so that validation
// catches members a revision does not define. It leaves open what the
// specification leaves open on purpose: _meta objects (and the *MetaObject
// definitions), the JSON Schemas of tools, and the branches of an allOf,
// which declare only part of an object each. Request and notification
// params may always carry _meta (see allowMeta).
func strictify(v any, name string, inAllOf bool) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch {
			case k == "properties":
				props, _ := e.(map[string]any)
				for pk, pe := range props {
					if pk == "_meta" || pk == "inputSchema" || pk == "outputSchema" {
						continue
					}
					props[pk] = strictify(pe, pk, false)
					if pk == "params" {
						allowMeta(props[pk])
					}
				}
			case k == "allOf":
				v[k] = strictify(e, k, true)
			case name == "" || name == "$defs" || name == "definitions":
				// v is the map of definitions: k is a definition's name.
				if strings.HasSuffix(k, "MetaObject") {
					continue
				}
				v[k] = strictify(e, k, false)
			default:
				v[k] = strictify(e, k, false)
			}
		}
		if _, ok := v["properties"]; ok && !inAllOf {
			if _, ok := v["additionalProperties"]; !ok {
				v["additionalProperties"] = false
			}
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = strictify(e, name, inAllOf)
		}
		return v
	}
	return v
}
