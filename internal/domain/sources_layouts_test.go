package domain

import (
	"strings"
	"testing"
	"time"
)

// families as the Redis adapter names them (store.Keys.Families), enough for these tests.
var testFamilies = []KeyFamily{
	{Prefix: "zpulse:", Holds: "zpulse's own keys"},
	{Prefix: "{queue:", Holds: "zpulse's keys beside its queues"},
	{Prefix: "{lock:", Holds: "zpulse's keys beside its locks"},
	{Prefix: "leaderboard:", Holds: "a board's key", Kind: SourceBoard},
	{Prefix: "queue:", Holds: "a queue's key", Kind: SourceQueue},
	{Prefix: "lock:", Holds: "a lock's key", Kind: SourceLock},
	{Prefix: "rate:", Holds: "zpulse's limiters' keys"},
}

func TestSourceHashTagLayouts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		src  Source
		want string // "" accepted, else in the message
	}{
		{Source{Kind: SourceBoard, Key: "{game}:rank:{yyyymmdd}", Encoding: "first_reached_e10"}, ""},
		{Source{Kind: SourceBoard, Key: "game:{rank}:{yyyymmdd}", Encoding: "none"}, ""},
		{Source{Kind: SourceLimiter, Key: "limit:api:{{client}}:{window_start}", Encoding: SourceFixedWindow, Limit: 5, WindowMs: 60_000}, ""},
		{Source{Kind: SourceLimiter, Key: "bucket:{{client}}", Encoding: SourceTokenBucket, Limit: 5, RatePerS: 1, TokensField: "tokens", TimeField: "last_refill"}, ""},
		{Source{Kind: SourceBoard, Key: "{a}{b}:{yyyymmdd}", Encoding: "none"}, "hash tag"},
		{Source{Kind: SourceBoard, Key: "}game{:x", Encoding: "none"}, "hash tag"},
		{Source{Kind: SourceBoard, Key: "{}game", Encoding: "none"}, "hash tag"},
		{Source{Kind: SourceBoard, Key: "{queue:q}:jobs", Encoding: "none"}, "beside its queues"},
		{Source{Kind: SourceLimiter, Key: "{{client}}", Encoding: SourceSlidingLog, Limit: 5, WindowMs: 1000}, "beside its queues"},
		{Source{Kind: SourceLimiter, Key: "{q{client}}", Encoding: SourceSlidingLog, Limit: 5, WindowMs: 1000}, "beside its queues"},
	} {
		c.src.Name = "s"
		err := c.src.Validate(testFamilies)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s %q: %v, want %q", c.src.Kind, c.src.Key, err, c.want)
		}
	}
	src := Source{Kind: SourceLimiter, Key: "limit:api:{{client}}:{window_start}", Encoding: SourceFixedWindow, Limit: 5, WindowMs: 60_000}
	now := time.Date(2026, 7, 25, 10, 5, 0, 0, time.UTC)
	key := src.ClientKey("user1001", now)
	if key != "limit:api:{user1001}:1784973900" {
		t.Errorf("key %q", key)
	}
	if c, ws, ok := src.ParseClientKey(key); !ok || c != "user1001" || ws != 1784973900 {
		t.Errorf("parse %q: %q %d %v", key, c, ws, ok)
	}
	if p := src.ScanPattern(); p != "limit:api:{*}:*" {
		t.Errorf("pattern %q", p)
	}
}

// A service dating its keys in Asia/Shanghai: at 00:30 local time (16:30 UTC the day before)
// today's board is the local day's.
func TestSourceZone(t *testing.T) {
	t.Parallel()
	src := Source{Name: "s", Kind: SourceBoard, Key: "game:rank:{yyyymmdd}", Encoding: "none", Zone: "Asia/Shanghai"}
	if err := src.Validate(testFamilies); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 16, 30, 0, 0, time.UTC)
	if k := src.BoardKey(at); k != "game:rank:20261201" {
		t.Errorf("00:30 in Shanghai: %q, want game:rank:20261201", k)
	}
	src.Zone = ""
	if k := src.BoardKey(at); k != "game:rank:20261130" {
		t.Errorf("UTC: %q", k)
	}
	for _, bad := range []Source{
		{Kind: SourceBoard, Key: "game:rank:{yyyymmdd}", Encoding: "none", Zone: "Mars/Olympus"},
		{Kind: SourceBoard, Key: "game:rank:{yyyymmdd}", Encoding: "none", Zone: "Local"},
		{Kind: SourceBoard, Key: "game:rank:all", Encoding: "none", Zone: "Asia/Shanghai"},
	} {
		bad.Name = "s"
		if err := bad.Validate(testFamilies); err == nil || ErrorField(err) != "zone" {
			t.Errorf("zone %q on %q: %v", bad.Zone, bad.Key, err)
		}
	}
}

// The second article's tie-break with a max_ts of the service's: points read right whether
// max_ts − ts is above 10^10 or below 0, where ⌊score / 10^10⌋ would be off by one.
func TestSourceMaxTS(t *testing.T) {
	t.Parallel()
	ts := time.Date(2026, 7, 25, 10, 0, 0, 0, time.UTC).Unix()
	for _, maxTS := range []int64{E10MaxTS, 20_000_000_000, 1_000_000_000, 4_102_444_800} {
		src := Source{Name: "s", Kind: SourceBoard, Key: "game:rank:{yyyymmdd}", Encoding: "first_reached_e10", MaxTS: maxTS}
		if err := src.Validate(testFamilies); err != nil {
			t.Fatal(err)
		}
		for _, points := range []int64{0, 1, 150, 900_000, -3} {
			score := float64(points*E10Scale + (maxTS - ts))
			if got := src.Scores().Points(score); got != points {
				t.Errorf("max_ts %d, %d points: read %d", maxTS, points, got)
			}
		}
	}
	for _, bad := range []Source{
		{Kind: SourceBoard, Key: "k", Encoding: "none", MaxTS: 5},
		{Kind: SourceBoard, Key: "k", Encoding: "first_reached_e10", MaxTS: -1},
		{Kind: SourceBoard, Key: "k", Encoding: "first_reached_e10", MaxTS: MaxSourceMaxTS + 1},
	} {
		bad.Name = "s"
		if err := bad.Validate(testFamilies); err == nil || ErrorField(err) != "max_ts" {
			t.Errorf("max_ts %d on %s: %v", bad.MaxTS, bad.Encoding, err)
		}
	}
}

func TestSourceTokenBucketValidation(t *testing.T) {
	t.Parallel()
	ok := Source{Name: "s", Kind: SourceLimiter, Key: "bucket:{client}", Encoding: SourceTokenBucket, Limit: 10, RatePerS: 0.5,
		TokensField: "令牌数", TimeField: "last_refill", TimeUnit: SourceSeconds, WindowMs: 1000}
	if err := ok.Validate(testFamilies); err != nil || ok.WindowMs != 0 {
		t.Fatalf("%v (window %d)", err, ok.WindowMs)
	}
	for field, mutate := range map[string]func(*Source){
		"tokens_field": func(s *Source) { s.TokensField = "" },
		"time_field":   func(s *Source) { s.TimeField = s.TokensField },
		"time_unit":    func(s *Source) { s.TimeUnit = "us" },
		"limit":        func(s *Source) { s.Limit = 0 },
		"rate_per_s":   func(s *Source) { s.RatePerS = 0 },
		"key":          func(s *Source) { s.Key = "bucket:{client}:{window_start}" },
	} {
		s := ok
		mutate(&s)
		if err := s.Validate(testFamilies); err == nil || ErrorField(err) != field {
			t.Errorf("%s: %v", field, err)
		}
	}
}
