// Package httpio reads requests and words their answers one way for zpulse's pages, forms
// and JSON API alike (internal/web and internal/web/api): the binder (bind.go), the strict
// JSON decoder (decode.go), the error table (errors.go), and the request pieces both read
// (jobs_query.go, source_inputs.go) or leave for the middleware (unchanged.go). It imports
// domain and echo, never internal/web.
package httpio
