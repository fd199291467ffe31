package mcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/schematest"
	"github.com/winbridge/winbridge/mcp"
)

type descInner struct {
	Key string `json:"key" jsonschema:"the key, as the device names it"`
}

type DescEmbedded struct {
	Shared string `json:"shared,omitempty" jsonschema_description:"shared, from an embedded struct"`
}

type descAll struct {
	DescEmbedded
	Full    string                `json:"full" jsonschema_description:"a, b, and c"`
	SDK     string                `json:"sdk,omitempty" jsonschema:"free text, commas kept, e.g. a=1"`
	Both    int                   `json:"both,omitempty" jsonschema:"minimum=1,maximum=9" jsonschema_description:"from 1 to 9, inclusive"`
	Keyword string                `json:"keyword,omitempty" jsonschema:"description=no comma here,minLength=2"`
	Escaped string                `json:"escaped,omitempty" jsonschema:"description=escaped\\, kept"`
	Nested  []descInner           `json:"nested,omitempty" jsonschema_description:"nested items"`
	Maybe   *string               `json:"maybe,omitempty" jsonschema:"nullable" jsonschema_description:"a string, or null"`
	ByName  map[string]*descInner `json:"byName,omitempty"`
	None    bool                  `json:"none,omitempty"`
}

// Every form that states a whole description reaches the schema whole,
// and keywords beside it still apply.
func TestSchemaDescriptionsWhole(t *testing.T) {
	raw, err := mcp.SchemaFor[descAll]()
	if err != nil {
		t.Fatal(err)
	}
	if bad := schematest.Descriptions(reflect.TypeFor[descAll](), raw); len(bad) > 0 {
		t.Errorf("%s\nschema %s", strings.Join(bad, "\n"), raw)
	}
	var s struct {
		Properties map[string]struct {
			Description string   `json:"description"`
			Minimum     *float64 `json:"minimum"`
			Maximum     *float64 `json:"maximum"`
			MinLength   *int     `json:"minLength"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"full": "a, b, and c", "sdk": "free text, commas kept, e.g. a=1", "both": "from 1 to 9, inclusive",
		"keyword": "no comma here", "escaped": "escaped, kept", "shared": "shared, from an embedded struct", "none": "", "maybe": "a string, or null",
	} {
		if got := s.Properties[name].Description; got != want {
			t.Errorf("%s: description %q, want %q", name, got, want)
		}
	}
	if p := s.Properties["both"]; p.Minimum == nil || *p.Minimum != 1 || p.Maximum == nil || *p.Maximum != 9 {
		t.Errorf("both: the keywords beside jsonschema_description were lost: %s", raw)
	}
	if p := s.Properties["keyword"]; p.MinLength == nil || *p.MinLength != 2 {
		t.Errorf("keyword: minLength lost: %s", raw)
	}
	if strings.Join(s.Required, ",") != "full" {
		t.Errorf("required %q: a tag's text made a field required", s.Required)
	}
}

type cutDesc struct {
	Confirm bool `json:"confirm" jsonschema:"description=must be true to run a destructive command (install, uninstall)"`
}
type cutAfterKeyword struct {
	N int `json:"n" jsonschema:"minimum=0,description=count, of lines"`
}
type sdkReadsRequired struct {
	S string `json:"s,omitempty" jsonschema:"the name,required"`
}
type sdkReadsKeyword struct {
	S string `json:"s,omitempty" jsonschema:"the name,minLength=3"`
}
type escapedRequired struct {
	S string `json:"s,omitempty" jsonschema:"description=the name\\,required"`
}
type twoDescriptions struct {
	S string `json:"s" jsonschema:"description=one" jsonschema_description:"two"`
}
type twoDescriptionsSDK struct {
	S string `json:"s" jsonschema:"one" jsonschema_description:"two"`
}
type unknownKeyword struct {
	S string `json:"s" jsonschema:"descripton=a typo"`
}
type sdkStartsWithWord struct {
	S string `json:"s" jsonschema:"x=1 means all"`
}
type nestedCut struct {
	Items []struct {
		X string `json:"x" jsonschema:"description=a, b"`
	} `json:"items"`
}

// Tags invopop/jsonschema would misread fail, naming the field, instead of
// sending a cut description or an unintended keyword.
func TestSchemaDescriptionsMisreadRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		infer func() (json.RawMessage, error)
		field string
	}{
		{"cut", mcp.SchemaFor[cutDesc], "Confirm"},
		{"cut after a keyword", mcp.SchemaFor[cutAfterKeyword], "N"},
		{"sdk form with required", mcp.SchemaFor[sdkReadsRequired], "S"},
		{"sdk form with a keyword", mcp.SchemaFor[sdkReadsKeyword], "S"},
		{"escaped comma before required", mcp.SchemaFor[escapedRequired], "S"},
		{"two descriptions", mcp.SchemaFor[twoDescriptions], "S"},
		{"two descriptions, sdk form", mcp.SchemaFor[twoDescriptionsSDK], "S"},
		{"nested", mcp.SchemaFor[nestedCut], "X"},
		{"unknown keyword", mcp.SchemaFor[unknownKeyword], "S"},
		{"free text starting with WORD=", mcp.SchemaFor[sdkStartsWithWord], "S"},
	} {
		raw, err := tc.infer()
		if err == nil || !strings.Contains(err.Error(), "."+tc.field+":") {
			t.Errorf("%s: schema %s, err %v; want an error naming field %s", tc.name, raw, err, tc.field)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Confirm") {
			t.Errorf("AddTool with a cut description: panic %v", r)
		}
	}()
	mcp.AddTool(mcp.NewServer(&mcp.Implementation{Name: "s"}, nil), &mcp.Tool{Name: "cut"},
		func(context.Context, *mcp.CallToolRequest, cutDesc) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
}
