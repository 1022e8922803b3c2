package boards

import (
	"encoding/base64"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// A board's cursor (boards, seasons and adopted boards page through it) is read as strictly
// as a body: a member named twice, an unknown member, invalid UTF-8 or another case are
// refused, not read as the last or the first.
func TestCursorIsDecodedStrictly(t *testing.T) {
	if _, err := decodeCursor(cursor{Score: "12", Member: "alice"}.encode()); err != nil {
		t.Fatalf("a cursor this API wrote: %v", err)
	}
	for _, raw := range []string{
		`{"s":"12","m":"alice","m":"bob"}`,
		`{"s":"12","m":"alice","x":1}`,
		"{\"s\":\"12\",\"m\":\"al\xffice\"}",
		`{"S":"12","m":"alice"}`,
		`null`,
	} {
		_, err := decodeCursor(base64.RawURLEncoding.EncodeToString([]byte(raw)))
		if domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("cursor %q: %v, want invalid", raw, err)
		}
	}
}
