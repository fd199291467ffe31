package main

import (
	"context"
	"encoding/json"

	"github.com/winbridge/winbridge/mcp"
)

// watchedURI is the resource that resources-subscribe and
// resources-unsubscribe subscribe to; main tells its subscribers it
// changed every few seconds.
const watchedURI = "test://watched-resource"

// addResources registers the resources of resources-list,
// resources-read-text, resources-read-binary, resources-templates-read,
// resources-subscribe and resources-unsubscribe. sep-2164-resource-not-found
// needs none: the library answers an unknown URI with -32602 and
// data.uri in 2026-07-28 (-32002 before).
func addResources(srv *mcp.Server) {
	fixed := func(r *mcp.Resource, contents *mcp.ResourceContents) {
		srv.AddResource(r, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{contents}}, nil
		})
	}
	fixed(&mcp.Resource{URI: "test://static-text", Name: "static-text", Title: "Static Text Resource",
		Description: "A static text resource for testing", MIMEType: "text/plain"},
		&mcp.ResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: mcp.Ptr("This is the content of the static text resource.")})
	fixed(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Title: "Static Binary Resource",
		Description: "A static binary resource (image) for testing", MIMEType: "image/png"},
		&mcp.ResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: mcp.Ptr(redPixelPNG)})
	fixed(&mcp.Resource{URI: watchedURI, Name: "watched-resource", Title: "Watched Resource",
		Description: "A resource that auto-updates every 3 seconds", MIMEType: "text/plain"},
		&mcp.ResourceContents{URI: watchedURI, MIMEType: "text/plain", Text: mcp.Ptr("Watched resource content")})

	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Title: "Resource Template",
		Description: "A resource template with parameter substitution", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := req.TemplateVars()["id"]
			b, _ := json.Marshal(struct {
				ID           string `json:"id"`
				TemplateTest bool   `json:"templateTest"`
				Data         string `json:"data"`
			}{id, true, "Data for ID: " + id})
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "application/json", Text: mcp.Ptr(string(b))},
			}}, nil
		})
}
