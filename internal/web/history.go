package web

import (
	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
)

// pageHistory reads an entity's recorded history for its page over the ?range= asked (1h
// unless asked), and returns the chart's live topic. Bad ranges are EINVALID (400). While
// Redis is down, or with no history service (tests that do not wire one), the page shows no
// chart: nil and no topic.
func (s *server) pageHistory(c echo.Context, kind domain.HistoryKind, name string) (*domain.History, []string, error) {
	r, err := domain.ParseHistoryRange(c.QueryParam("range"))
	if err != nil {
		return nil, nil, err
	}
	if s.History == nil || domain.ValidateHistoryName(kind, name) != nil {
		return nil, nil, nil // no history kept, or a name only another service uses (排行榜:2048): no chart
	}
	h, err := s.History.Ring(c.Request().Context(), kind, name, r)
	if err != nil {
		if domain.ErrorCode(err) == domain.EUNAVAILABLE {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	return &h, []string{panels.History.Topic(panels.ChartParams{Kind: kind, Name: name, Range: r})}, nil
}
