package web

import (
	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
)

// TopicRenderer renders a live topic's snapshot as its panel declares (panels.Renderer), as
// an audience may see it (the one the websocket's reader had when it connected, see
// serveWS). Their links carry basePath, the prefix zpulse is served under (Deps.BasePath).
func TopicRenderer(bigKey int64, keys domain.KeyDisplay, basePath string) live.RenderFunc {
	return panels.Renderer(panels.Env{BasePath: basePath, BigKey: bigKey, Keys: keys})
}
