package views

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// appJSChart runs static/src/app.js in node at each now over a stand-in chart (its figure's
// data-chart-* attributes, its plot's viewBox, its five time labels) and prints, per now, the
// viewBox and the labels app.js leaves.
const appJSChart = `
const fs = require('fs'), vm = require('vm');
const src = fs.readFileSync(process.argv[1], 'utf8'), chart = JSON.parse(process.argv[2]), nows = JSON.parse(process.argv[3]);
function el(attrs) {
  return { attrs: attrs, textContent: '',
    getAttribute(n) { return n in this.attrs ? String(this.attrs[n]) : null; },
    setAttribute(n, v) { this.attrs[n] = v; },
    hasAttribute(n) { return n in this.attrs; } };
}
const plot = el({viewBox: chart.viewBox}), ticks = [0, 1, 2, 3, 4].map(q => el({'data-chart-tick': q}));
const figure = el({'data-chart-origin': chart.origin, 'data-chart-range': chart.range, 'data-chart-step': chart.step, 'data-chart-col': chart.col});
const shade = el({x: '0', width: '0'});
figure.querySelector = sel => sel === 'svg[data-chart-plot]' ? plot : sel === 'rect[data-chart-partial]' ? shade : null;
figure.querySelectorAll = sel => sel === '[data-chart-tick]' ? ticks : [];
let now = 0;
class FixedDate extends Date { static now() { return now; } }
const listeners = {};
const document = {
  addEventListener(type, f) { (listeners[type] = listeners[type] || []).push(f); },
  querySelectorAll(sel) { return sel === '[data-chart-range]' ? [figure] : []; },
  querySelector() { return null; },
};
vm.runInNewContext(src, {document: document, window: {}, setInterval() {}, Date: FixedDate});
const out = [];
for (const n of nows) {
  now = n;
  listeners['DOMContentLoaded'].forEach(f => f());
  out.push([plot.attrs.viewBox].concat(ticks.map(t => t.textContent), [shade.attrs.width]));
}
console.log(JSON.stringify(out));
`

// The browser slides a chart as the server draws it: at each now, app.js's viewBox and time
// labels are those buildChart draws for a window ending where the newest bucket recorded by
// then ends (the recorder writes a 10 s bucket a second after it ends; the 24 h range's
// minute shows as its 10 s buckets land). Just after a bucket lands, between two, 30 s and
// two hours on, over both ranges. The column still in progress (its newest bucket does not end
// it) is shaded.
func TestAppJSSlidesChartsAsBuildChartDraws(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to run static/src/app.js (make test needs it for the assets too):", err)
	}
	for _, r := range domain.HistoryRanges {
		h := queueHistory(r, map[int][]int64{5: {3, 0, 1, 0, 3, 0, 0, 0, 0, 0}, 40: {3, 0, 1, 0, 0, 1, 0, 10, 10, 10}}).Settle()
		last := h.Buckets[len(h.Buckets)-1].AtMs + h.StepMs
		ch := historyCharts(h)[1]
		in, _ := json.Marshal(map[string]string{"origin": ch.Origin, "range": ch.RangeMs, "step": ch.StepMs, "col": ch.ColMs, "viewBox": ch.ViewBox})
		nows := []int64{last + 500, last + 1000, last + 6500, last + 10_500, last + 31000, last + 2*3600_000 + 4321}
		arg, _ := json.Marshal(nows)
		out, err := exec.Command(node, "-e", appJSChart, "../static/src/app.js", string(in), string(arg)).CombinedOutput()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		var got [][]string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		for i, now := range nows {
			ended := (now - 1000) / 10_000 * 10_000 // the end of the newest 10 s bucket recorded
			at := h
			at.EndMs = (ended-10_000)/h.StepMs*h.StepMs + h.StepMs
			want := historyCharts(at)[1]
			if got[i][0] != want.ViewBox {
				t.Errorf("%s, now %s: viewBox %q, want %q", r, time.UnixMilli(now).UTC().Format(time.TimeOnly), got[i][0], want.ViewBox)
			}
			colMs, _ := strconv.ParseInt(ch.ColMs, 10, 64)
			if shaded := got[i][6] != "0"; shaded != (ended%colMs != 0) {
				t.Errorf("%s, now %s: the column in progress shaded %v (width %s), want %v", r, time.UnixMilli(now).UTC().Format(time.TimeOnly), shaded, got[i][6], ended%colMs != 0)
			}
			for q, tick := range want.XTicks {
				if got[i][1+q] != tick.Label {
					t.Errorf("%s, now %s: label %d %q, want %q", r, time.UnixMilli(now).UTC().Format(time.TimeOnly), q, got[i][1+q], tick.Label)
				}
			}
		}
	}
}
