package main

import (
	"context"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/schematest"
)

// Every field description the listed tools carry is the whole text of a
// tag in this package's source, and every such tag reaches a schema.
func TestFieldDescriptionsWhole(t *testing.T) {
	src, err := schematest.SourceTags(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Tags) == 0 {
		t.Fatal("no tagged field found in the source")
	}
	c := connect(t, eras[len(eras)-1], client.Options{})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if bad := schematest.AgainstSource(tools, src); len(bad) > 0 {
		t.Error(strings.Join(bad, "\n"))
	}
}
