package mcphttp

import "mime"

// parseMediaType is mime.ParseMediaType with the media types every
// request and response of this transport carries answered without
// parsing: they have no parameters and are already in lower case, so the
// parser would return them as they are, after allocating for each.
func parseMediaType(v string) (mediatype string, params map[string]string, err error) {
	switch v {
	case "application/json", "text/event-stream", "*/*", "application/*", "text/*":
		return v, nil, nil
	}
	return mime.ParseMediaType(v)
}
