package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// pollConsumer is who a poll comes from (domain.ConsumerID): the consumer name it sent,
// checked, else its client address (c.RealIP: the connection's, or with --trust-proxy the
// forwarded one).
func pollConsumer(c echo.Context, name *string) (string, error) {
	if name == nil {
		return domain.ConsumerID("", c.RealIP()), nil
	}
	if err := domain.ValidateConsumer(*name); err != nil {
		return "", err
	}
	return domain.ConsumerID(*name, ""), nil
}

// consumerResponse is a consumer as GET /api/v1/queues/:queue/consumers gives it.
type consumerResponse struct {
	Consumer        string    `json:"consumer"`
	Address         bool      `json:"address"`
	LastPoll        time.Time `json:"last_poll"`
	Leases          int64     `json:"leases"`
	AcksLastMinute  int64     `json:"acks_last_minute"`
	NacksLastMinute int64     `json:"nacks_last_minute"`
	AcksThisMinute  int64     `json:"acks_this_minute"`
	NacksThisMinute int64     `json:"nacks_this_minute"`
}

// Consumers lists who consumes a queue. A caller who does not see client ids
// (domain.Audience) reads "hidden" for the consumers known by their client address.
func (h *Handlers) Consumers(c echo.Context) error {
	queue := httpio.PathParam(c, "queue")
	cs, err := h.Queues.Consumers(c.Request().Context(), queue)
	if err != nil {
		return err
	}
	cs = h.Audience(c).Consumers(cs)
	out := make([]consumerResponse, len(cs))
	for i, v := range cs {
		out[i] = consumerResponse{Consumer: v.Name, Address: v.Address, LastPoll: time.UnixMilli(v.LastPollMs).UTC(), Leases: v.Leases,
			AcksLastMinute: v.AcksLastMinute, NacksLastMinute: v.NacksLastMinute, AcksThisMinute: v.AcksThisMinute, NacksThisMinute: v.NacksThisMinute}
	}
	return c.JSON(http.StatusOK, map[string]any{"queue": queue, "consumers": out})
}
