package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
)

// apiDoc is internal/web/openapi.json loaded and checked by kin-openapi, which validates
// OpenAPI 3.1 documents (JSON Schema 2020-12: type arrays such as ["string", "null"]) and
// answers against them.
var apiDoc = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openAPI)
	if err != nil {
		return nil, err
	}
	return doc, doc.Validate(context.Background())
})

func loadAPIDoc(t testing.TB) *openapi3.T {
	t.Helper()
	doc, err := apiDoc()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc
}

func TestOpenAPIDocumentIsValid31(t *testing.T) {
	t.Parallel()
	doc := loadAPIDoc(t)
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi = %q, want 3.1", doc.OpenAPI)
	}
}

// The document and the router describe the same API: every API route is documented, and
// every documented operation is served.
func TestOpenAPIMatchesRouter(t *testing.T) {
	t.Parallel()
	doc := loadAPIDoc(t)
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" /api/v1"+path] = true
		}
	}
	served := map[string]bool{}
	e := newFakeServer(t, "", nil, nil).Config.Handler.(*echo.Echo)
	param := regexp.MustCompile(`:([a-z_]+)`)
	for _, r := range e.Routes() {
		if !strings.HasPrefix(r.Path, "/api/v1/") || strings.Contains(r.Path, "*") ||
			r.Name == methodNotAllowedRoute || r.Method == http.MethodHead || r.Method == echo.RouteNotFound {
			continue // HEAD is GET's twin, described once in info.description
		}
		served[r.Method+" "+param.ReplaceAllString(r.Path, "{$1}")] = true
	}
	for route := range served {
		if !documented[route] {
			t.Errorf("%s is served but not in openapi.json", route)
		}
	}
	for route := range documented {
		if !served[route] {
			t.Errorf("%s is in openapi.json but not served", route)
		}
	}
	if len(served) < 30 {
		t.Errorf("only %d API routes found: %v", len(served), served)
	}
}

// The served document is the embedded one, its server URL carrying the base path.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, nil)
	status, body, h := s.do(t, http.MethodGet, "/api/v1/openapi.json", "", "")
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || body != string(openAPI) {
		t.Fatalf("GET /api/v1/openapi.json: %d %s", status, h.Get("Content-Type"))
	}
	based := newFakeServer(t, "", nil, func(d *Deps) { d.BasePath = "/zpulse" })
	status, body, _ = based.do(t, http.MethodGet, "/zpulse/api/v1/openapi.json", "", "")
	if status != http.StatusOK || !strings.Contains(body, `"url": "/zpulse/api/v1"`) {
		t.Errorf("under a base path: %d, no server URL with the base path", status)
	}
}

// contractTransport checks every answer of the API tests against openapi.json: the status
// is documented for the operation and the body is valid against its schema. Every test
// server's client goes through it (newTestServerWith).
type contractTransport struct {
	t    testing.TB
	base string
	next http.RoundTripper
}

func (ct contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := ct.next.RoundTrip(req)
	if err != nil || !strings.HasPrefix(req.URL.Path, ct.base+"/api/v1/") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return resp, err
	}
	checked := body
	if resp.Header.Get("Content-Encoding") == "gzip" { // asked for by the test: checked unzipped
		checked = gunzip(ct.t, string(body))
	}
	if err := checkContract(ct.t, req, strings.TrimPrefix(req.URL.EscapedPath(), ct.base+"/api/v1"), resp, checked); err != "" {
		ct.t.Errorf("%s %s answered %d against openapi.json: %s\n%.40s", req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
	return resp, nil
}

// checkContract says what is wrong with an API answer, "" when nothing is.
func checkContract(t testing.TB, req *http.Request, path string, resp *http.Response, body []byte) string {
	doc := loadAPIDoc(t)
	route, params := findOperation(doc, req.Method, path)
	if route == nil {
		// No operation: an unknown path (404) or a known path asked with another method
		// (405 with Allow); both answer the error envelope.
		switch resp.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed:
		default:
			if req.Method != http.MethodOptions || resp.StatusCode != http.StatusNoContent {
				return "no operation for this method and path"
			}
			return ""
		}
		if req.Method == http.MethodHead {
			return ""
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return err.Error()
		}
		if err := doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			return err.Error()
		}
		return ""
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	input.SetBodyBytes(body)
	if req.Method == http.MethodHead {
		// kin-openapi does not validate HEAD answers: the status must be GET's.
		if route.Operation.Responses.Status(resp.StatusCode) == nil {
			return "status is not documented for GET"
		}
		return ""
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return err.Error()
	}
	return ""
}

// findOperation is the documented operation of method and an escaped path below /api/v1,
// with its path parameters; HEAD finds GET's.
func findOperation(doc *openapi3.T, method, path string) (*routers.Route, map[string]string) {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	segs := strings.Split(path, "/")
	for _, tmpl := range doc.Paths.InMatchingOrder() {
		tsegs := strings.Split(tmpl, "/")
		if len(tsegs) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, ts := range tsegs {
			if strings.HasPrefix(ts, "{") {
				params[strings.Trim(ts, "{}")] = segs[i]
			} else if ts != segs[i] {
				ok = false
				break
			}
		}
		item := doc.Paths.Value(tmpl)
		if !ok || item.GetOperation(method) == nil {
			continue
		}
		return &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: method, Operation: item.GetOperation(method)}, params
	}
	return nil, nil
}

// Every call that changes something answers 413 for a body above the limit, whether it takes
// a body or not (the limit is the router's): each documents it.
func TestOpenAPIDocumentsTooLargeOnEveryChange(t *testing.T) {
	t.Parallel()
	doc := loadAPIDoc(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if method == http.MethodGet || method == http.MethodHead {
				continue
			}
			if op.Responses.Value("413") == nil {
				t.Errorf("%s %s does not document 413", method, path)
			}
		}
	}
}
