package audit

import (
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, func(time.Time) {}) }
