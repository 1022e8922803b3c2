// Package web is zpulse's HTTP layer on echo: NewServer(Deps) serves the pages, forms and
// websocket, registers the JSON API of internal/web/api, and routes.go shows the whole
// surface with the role each change needs. Handlers call the domain services; live topics are
// checked and rendered through internal/panels.
package web
