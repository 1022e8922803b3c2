package payloaddiff

import (
	"reflect"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new string
		want     []domain.PayloadChange
	}{
		{"same", `{"to":"a"}`, `{"to":"a"}`, []domain.PayloadChange{}},
		{"spacing only", `{"to":"a","n":1}`, "{ \"n\": 1,\n \"to\": \"a\" }", []domain.PayloadChange{}},
		{"none both", ``, ``, nil},
		{"added whole", ``, `{"to":"a"}`, []domain.PayloadChange{{Op: "added", New: `{"to":"a"}`}}},
		{"removed whole", `{"to":"a"}`, ``, []domain.PayloadChange{{Op: "removed", Old: `{"to":"a"}`}}},
		{"member changed, added, removed", `{"to":"a@x","retries":3}`, `{"to":"b@x","cc":["c@x"]}`, []domain.PayloadChange{
			{Op: "added", Path: "/cc", New: `["c@x"]`},
			{Op: "removed", Path: "/retries", Old: `3`},
			{Op: "changed", Path: "/to", Old: `"a@x"`, New: `"b@x"`},
		}},
		{"nested and escaped", `{"a/b":{"n":1}}`, `{"a/b":{"n":2}}`, []domain.PayloadChange{{Op: "changed", Path: "/a~1b/n", Old: `1`, New: `2`}}},
		{"big number kept exact", `{"id":12345678901234567890}`, `{"id":12345678901234567891}`, []domain.PayloadChange{
			{Op: "changed", Path: "/id", Old: `12345678901234567890`, New: `12345678901234567891`}}},
		{"not JSON (another service's)", `hello`, `{"a":1}`, []domain.PayloadChange{{Op: "changed", Old: `hello`, New: `{"a":1}`}}},
		{"array element", `[1,2]`, `[1,3]`, []domain.PayloadChange{{Op: "changed", Path: "/1", Old: `2`, New: `3`}}},
	} {
		got := Compare([]byte(c.old), []byte(c.new))
		if len(got) == 0 && len(c.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Compare = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestSummary(t *testing.T) {
	cs := Compare([]byte(`{"to":"a@x","retries":3}`), []byte(`{"to":"b@x","cc":["c@x"]}`))
	if got, want := domain.SummarizePayloadChanges(cs), "/cc added, /retries removed, /to changed"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	many := Compare([]byte(`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1}`), []byte(`{"a":2,"b":2,"c":2,"d":2,"e":2,"f":2,"g":2,"h":2}`))
	if got, want := domain.SummarizePayloadChanges(many), "/a changed, /b changed, /c changed, /d changed, /e changed, /f changed, and 2 more"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := domain.SummarizePayloadChanges(Compare(nil, []byte(`{"s":"secret"}`))); got != "the whole payload added" {
		t.Errorf("summary of a new payload %q", got)
	}
}
