package domain

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// appJSMoments runs static/src/app.js in node with a stand-in document holding, for each
// duration, three moments as pages send them (data-at-ms): an age (data-rel="age") that long
// ago, a moment that far ahead and one that far behind. It returns the text app.js gives
// each, in that order.
const appJSMoments = `
const fs = require('fs'), vm = require('vm');
const src = fs.readFileSync(process.argv[1], 'utf8'), now = +process.argv[2], cases = JSON.parse(process.argv[3]);
function moment(attrs) {
  return {
    attrs: attrs, textContent: '',
    getAttribute(n) { return n in this.attrs ? String(this.attrs[n]) : null; },
    hasAttribute(n) { return n in this.attrs; },
    toggleAttribute(n, on) { if (on) this.attrs[n] = ''; else delete this.attrs[n]; },
  };
}
const moments = [];
for (const ms of cases) {
  moments.push(moment({'data-at-ms': now - ms, 'data-rel': 'age'}), moment({'data-at-ms': now + ms}), moment({'data-at-ms': now - ms}));
}
const listeners = {};
const document = {
  addEventListener(type, f) { (listeners[type] = listeners[type] || []).push(f); },
  querySelectorAll(sel) { return sel === '[data-at-ms]' ? moments : []; },
  querySelector() { return null; },
};
vm.runInNewContext(src, {document: document, window: {}, setInterval() {}, Date: {now: () => now}});
listeners['DOMContentLoaded'].forEach(f => f());
console.log(JSON.stringify(moments.map(m => m.textContent)));
`

// The browser says durations as FormatDuration does: app.js's copy of the formatter, run in
// node (which make test needs already), over a table of durations. app.js says moments in
// whole seconds, so each is compared with FormatDuration of its whole seconds.
func TestAppJSFormatsDurationsAsGo(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to run static/src/app.js (make test needs it for the assets too):", err)
	}
	durations := []time.Duration{
		0, 999 * time.Millisecond, time.Second, 1500 * time.Millisecond, 12 * time.Second, 59999 * time.Millisecond,
		time.Minute, 61 * time.Second, 3*time.Minute + 5*time.Second, 59*time.Minute + 59*time.Second,
		time.Hour, 2*time.Hour + 10*time.Minute + 59*time.Second, 47*time.Hour + 59*time.Minute + 59*time.Second,
		48 * time.Hour, 72*time.Hour + time.Minute, 400 * 24 * time.Hour,
	}
	ms := make([]int64, len(durations))
	for i, d := range durations {
		ms[i] = d.Milliseconds()
	}
	cases, _ := json.Marshal(ms)
	now := int64(1_780_000_000_123)
	out, err := exec.Command(node, "-e", appJSMoments, "../../static/src/app.js", strconv.FormatInt(now, 10), string(cases)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != 3*len(durations) {
		t.Fatalf("node said %q (%v), want %d texts", out, err, 3*len(durations))
	}
	for i, d := range durations {
		whole := FormatDuration(d.Truncate(time.Second))
		ahead, behind := "in "+whole, whole+" ago"
		if d < time.Second {
			ahead, behind = "now", "now"
		}
		for j, want := range []string{whole, ahead, behind} {
			if got[3*i+j] != want {
				t.Errorf("%v (%s): app.js says %q, FormatDuration %q", d, []string{"age", "ahead", "behind"}[j], got[3*i+j], want)
			}
		}
	}
}
