package web

import (
	"github.com/zpulse/zpulse/internal/domain"
)

// maxTSInput is a board source's max_ts (the second article's tie-break).
var maxTSInput = whole{field: "max_ts", unit: "seconds", min: 1, max: domain.MaxSourceMaxTS}

// sourceInputs are an adopted source's options besides its name, kind and key, as sent: the
// form's text, or the API body's strings and raw JSON numbers (windowMs: the window is
// window_ms digits, not the form's "60s").
type sourceInputs struct {
	encoding, zone, tokensField, timeField, timeUnit string
	limit, window, maxTS, ratePerS                   string
	windowMs                                         bool
}

// fill puts the inputs the source's kind and encoding use into src, through the binder, and
// returns every input's error (the form shows each beside its field; the API the first).
func (in sourceInputs) fill(src *domain.Source) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	src.Encoding, src.Zone = in.encoding, in.zone
	var err error
	switch src.Kind {
	case domain.SourceLimiter:
		src.Limit, err = limitInput.parse(in.limit)
		add(err)
		if in.encoding == domain.SourceTokenBucket {
			src.RatePerS, err = rateInput.parse(in.ratePerS)
			add(err)
			src.TokensField, src.TimeField, src.TimeUnit = in.tokensField, in.timeField, in.timeUnit
			break
		}
		window, err := windowInput.text(in.window)
		if in.windowMs {
			window, err = windowInput.millis([]byte(in.window))
		}
		add(err)
		src.WindowMs = window.Milliseconds()
	case domain.SourceBoard:
		if in.maxTS != "" {
			src.MaxTS, err = maxTSInput.parse(in.maxTS)
			add(err)
		}
	}
	return errs
}
