package queues

import (
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, func(start time.Time) { testNow = start }) }

// testNow is where this room's test clocks start (redistest.Main): the first whole minute after
// the test server's clock, so what a test dates is a date Redis agrees with.
var testNow time.Time
