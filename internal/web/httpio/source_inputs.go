package httpio

import (
	"github.com/zpulse/zpulse/internal/domain"
)

// MaxTSInput is a board source's max_ts (the second article's tie-break).
var MaxTSInput = Whole{field: "max_ts", unit: "seconds", min: 1, max: domain.MaxSourceMaxTS}

// SourceInputs are an adopted source's options besides its name, kind and key, as sent: the
// form's text, or the API body's strings and raw JSON numbers (WindowMs: the window is
// window_ms digits, not the form's "60s").
type SourceInputs struct {
	Encoding, Zone, TokensField, TimeField, TimeUnit string
	SortOrder                                        string // a board's: "asc", "desc" or ""
	Limit, Window, MaxTS, RatePerS                   string
	WindowMs                                         bool
}

// Fill puts the inputs the source's kind and encoding use into src, through the binder, and
// returns every input's error (the form shows each beside its field; the API the first).
func (in SourceInputs) Fill(src *domain.Source) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	src.Encoding, src.Zone = in.Encoding, in.Zone
	var err error
	switch src.Kind {
	case domain.SourceLimiter:
		src.Limit, err = LimitInput.Parse(in.Limit)
		add(err)
		if in.Encoding == domain.SourceTokenBucket {
			src.RatePerS, err = RateInput.Parse(in.RatePerS)
			add(err)
			src.TokensField, src.TimeField, src.TimeUnit = in.TokensField, in.TimeField, in.TimeUnit
			break
		}
		window, err := WindowInput.Text(in.Window)
		if in.WindowMs {
			window, err = WindowInput.Millis([]byte(in.Window))
		}
		add(err)
		src.WindowMs = window.Milliseconds()
	case domain.SourceBoard:
		src.SortOrder = domain.SortOrder(in.SortOrder)
		if in.MaxTS != "" {
			src.MaxTS, err = MaxTSInput.Parse(in.MaxTS)
			add(err)
		}
	}
	return errs
}
