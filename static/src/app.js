// zpulse's only hand-written script. htmx and its ws extension do the swaps and the
// reconnects; this shows the connection state, each player's rank movement since the page
// opened, moments relative to the browser's clock, the parts of a form that apply, and has
// parts that follow the live panels reload after them.
(function () {
  // The badge's text without JavaScript says live updates need it; with it, the state, and
  // while the server says Redis does not answer (its banner, [data-redis-down]), that too:
  // the page is connected, but what it shows is the last data received.
  var connText = { connecting: 'Connecting…', open: 'Live', closed: 'Reconnecting…' };
  var connState = 'nojs';
  function setConn(state) {
    connState = state;
    var down = !!document.querySelector('[data-redis-down]');
    var text = down && state === 'open' ? 'Live · Redis unreachable' : connText[state];
    document.querySelectorAll('[data-conn]').forEach(function (el) {
      el.setAttribute('data-conn', state);
      el.setAttribute('data-redis', down ? 'down' : 'up');
    });
    document.querySelectorAll('.conn-label').forEach(function (el) {
      if (el.textContent !== text) el.textContent = text;
    });
  }
  // A form's answer that htmx does not swap (401, 403, 404, 429, 500…) is shown in the form
  // itself, never swallowed: the error page's message (or the API's envelope), one alert
  // at the top of the form, replaced by the next.
  function formError(evt, text) {
    var form = evt.detail && evt.detail.elt && evt.detail.elt.closest && evt.detail.elt.closest('form');
    if (!form) return;
    var alert = form.querySelector('[data-form-error]');
    if (!alert) {
      alert = document.createElement('p');
      alert.setAttribute('role', 'alert');
      alert.setAttribute('data-form-error', '');
      alert.className = 'rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800 dark:bg-rose-950 dark:text-rose-200';
      form.insertBefore(alert, form.firstChild);
    }
    alert.textContent = text;
  }
  function errorText(xhr) {
    var status = xhr.status + ' ' + (xhr.statusText || '');
    try {
      var body = JSON.parse(xhr.responseText);
      if (body && body.error && body.error.message) return body.error.message;
    } catch (e) { /* not JSON: an error page */ }
    var doc = new DOMParser().parseFromString(xhr.responseText || '', 'text/html');
    var msg = doc.querySelector('[data-error-message]');
    return (msg && msg.textContent.trim()) || ('The server answered ' + status.trim() + ': nothing was changed.');
  }
  // A copy button ([data-copy]: the selector of what it copies), shown once the clipboard
  // is there to copy to.
  document.addEventListener('DOMContentLoaded', function () {
    if (typeof navigator === 'undefined' || !navigator.clipboard) return;
    document.querySelectorAll('[data-copy]').forEach(function (button) {
      button.classList.remove('hidden');
      button.addEventListener('click', function () {
        var source = document.querySelector(button.getAttribute('data-copy'));
        navigator.clipboard.writeText(source.textContent.trim()).then(function () { button.textContent = 'Copied'; });
      });
    });
  });
  document.addEventListener('htmx:responseError', function (evt) {
    var xhr = evt.detail.xhr;
    if (xhr.getResponseHeader('HX-Redirect')) return; // htmx follows it (to sign in)
    formError(evt, errorText(xhr));
  });
  document.addEventListener('htmx:sendError', function (evt) {
    formError(evt, 'The server could not be reached: nothing was sent. Check the connection and try again.');
  });
  document.addEventListener('DOMContentLoaded', function () {
    if (!document.querySelector('[data-conn="open"]')) setConn('connecting');
    // The theme switch (theme.js applies and remembers the choice).
    document.querySelectorAll('[data-theme-switch]').forEach(function (label) {
      var select = label.querySelector('select');
      select.value = window.zpulseTheme ? window.zpulseTheme.get() : 'system';
      select.addEventListener('change', function () { window.zpulseTheme.set(select.value); });
      label.classList.replace('hidden', 'inline-flex');
    });
  });
  document.addEventListener('htmx:wsConnecting', function () { setConn('connecting'); });
  document.addEventListener('htmx:wsOpen', function () { setConn('open'); });
  document.addEventListener('htmx:wsClose', function () { setConn('closed'); });
  document.addEventListener('htmx:wsAfterMessage', function () { if (connState !== 'nojs') setConn(connState); });
  document.addEventListener('htmx:wsError', function () { setConn('closed'); });

  // Rank movement: the ranks of each live panel when the page opened are the baseline; after
  // every pushed fragment each row says how far its player moved since (▲ up, ▼ down, new).
  var baselines = {};
  function rows(panel) { return panel.querySelectorAll('tr[data-player][data-rank]'); }
  function mark(panel) {
    var base = baselines[panel.id];
    if (!base) {
      base = baselines[panel.id] = {};
      rows(panel).forEach(function (r) { base[r.dataset.player] = +r.dataset.rank; });
      return;
    }
    rows(panel).forEach(function (r) {
      var cell = r.querySelector('.move');
      if (!cell) return;
      var was = base[r.dataset.player], now = +r.dataset.rank;
      var text = '', cls = 'move ';
      var said = '';
      if (was === undefined) { text = 'new'; said = 'new since this page opened'; cls += 'text-sky-700 dark:text-sky-300'; }
      else if (now < was) { text = '▲' + (was - now); said = 'up ' + (was - now) + ' since this page opened'; cls += 'text-emerald-700 dark:text-emerald-300'; }
      else if (now > was) { text = '▼' + (now - was); said = 'down ' + (now - was) + ' since this page opened'; cls += 'text-rose-700 dark:text-rose-300'; }
      cell.textContent = text;
      cell.className = cls;
      cell.setAttribute('data-move', text);
      cell.title = said;
      if (said) cell.setAttribute('aria-label', said); else cell.removeAttribute('aria-label');
    });
  }
  function markAll() { document.querySelectorAll('[data-rank-panel]').forEach(mark); }
  document.addEventListener('DOMContentLoaded', markAll);
  document.addEventListener('htmx:wsAfterMessage', markAll);

  // Moments: the server sends absolute times (data-at-ms) so a fragment does not change while
  // its data does not; this says them relative to now ("in 12 s", "3 min ago", or an age with
  // data-rel="age") every second and marks past ones with data-past. The wording is
  // domain.FormatDuration's.
  function twoUnits(n, unit, m, small) { return n + ' ' + unit + (m > 0 ? ' ' + m + ' ' + small : ''); }
  function duration(ms) {
    ms = Math.floor(ms);
    if (ms < 1000) return ms + ' ms';
    if (ms < 60000) return String(Math.floor(ms / 100) / 10) + ' s';
    if (ms < 3600000) return twoUnits(Math.floor(ms / 60000), 'min', Math.floor(ms / 1000) % 60, 's');
    if (ms < 48 * 3600000) return twoUnits(Math.floor(ms / 3600000), 'h', Math.floor(ms / 60000) % 60, 'min');
    return Math.floor(ms / (24 * 3600000)) + ' d';
  }
  function relative(el, now) {
    var at = +el.getAttribute('data-at-ms'), d = at - now;
    if (el.getAttribute('data-rel') === 'age') return duration(Math.max(-d, 0) - Math.max(-d, 0) % 1000);
    if (el.getAttribute('data-rel') === 'left') { // a countdown (a lock's lease), its ms in data-ms
      var left = Math.max(d, 0);
      el.setAttribute('data-ms', String(left - left % 100));
      return duration(left < 1000 ? left - left % 100 : left - left % 1000);
    }
    d -= d % 1000; // whole seconds, as the server showed them
    if (d > -1000 && d < 1000) return 'now';
    return d > 0 ? 'in ' + duration(d) : duration(-d) + ' ago';
  }
  // A history chart's window ends where the newest bucket recorded by now ends: the recorder
  // writes each 10 s bucket a second after it ends (history.HistoryDelay), and a longer
  // bucket (the 24 h range's minute) as its 10 s buckets land. chartX is an instant's x in a
  // plot width wide per range from origin; chartLabel says an instant as clockLabel does.
  function chartEnd(now, step) {
    var ended = Math.floor((now - 1000) / 10000) * 10000;
    return Math.floor((ended - 10000) / step) * step + step;
  }
  function chartX(ms, origin, range, width) { return ((ms - origin) * width / range).toFixed(1); }
  function chartLabel(ms) {
    var d = new Date(ms), two = function (n) { return (n < 10 ? '0' : '') + n; };
    return two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + (d.getUTCSeconds() ? ':' + two(d.getUTCSeconds()) : '');
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll('[data-at-ms]').forEach(function (el) {
      var text = relative(el, now);
      if (el.textContent !== text) el.textContent = text;
      var past = +el.getAttribute('data-at-ms') <= now;
      if (past !== el.hasAttribute('data-past')) el.toggleAttribute('data-past', past);
    });
    // A sparkline (views/queues.go; a limiter's checks per second, views/limiters.go): its
    // points sit at their seconds from data-spark-origin;
    // the viewBox shows the last data-spark-window seconds before now, and the rate is the
    // mean of the last 10 of them.
    var nowSec = Math.floor(now / 1000);
    document.querySelectorAll('[data-spark-origin]').forEach(function (el) {
      var origin = +el.getAttribute('data-spark-origin'), span = +el.getAttribute('data-spark-window');
      var svg = el.querySelector('svg'), box = (nowSec - span - origin) + ' 0 ' + span + ' 40';
      if (svg && svg.getAttribute('viewBox') !== box) svg.setAttribute('viewBox', box);
      var sum = 0;
      (el.getAttribute('data-spark-counts') || '').split(' ').forEach(function (pair) {
        var at = origin + +pair.split(':')[0];
        if (pair && at >= nowSec - 10 && at < nowSec) sum += +pair.split(':')[1];
      });
      var rate = el.querySelector('[data-spark-rate]'), text = (sum / 10).toFixed(1) + '/s';
      if (rate && rate.textContent !== text) rate.textContent = text;
    });
    // A history chart (views/history.go's buildChart): drawn at absolute times from
    // data-chart-origin; the plot shows the range before the newest bucket recorded by now.
    document.querySelectorAll('[data-chart-range]').forEach(function (el) {
      var range = +el.getAttribute('data-chart-range'), end = chartEnd(now, +el.getAttribute('data-chart-step'));
      var origin = el.getAttribute('data-chart-origin'), plot = el.querySelector('svg[data-chart-plot]');
      if (origin && plot) {
        var box = plot.getAttribute('viewBox').split(' ');
        box[0] = chartX(end - range, +origin, range, +box[2]);
        if (plot.getAttribute('viewBox') !== box.join(' ')) plot.setAttribute('viewBox', box.join(' '));
      }
      // The column still in progress at now, shaded: its newest 10 s bucket is written, the
      // rest of its time is not yet (hidden when the newest bucket ends a column).
      var col = +el.getAttribute('data-chart-col'), shade = el.querySelector('rect[data-chart-partial]');
      if (origin && plot && shade && col) {
        var newest = Math.floor((now - 1000) / 10000) * 10000, start = Math.floor((newest - 1) / col) * col;
        var partial = newest - start < col, w = (col * +plot.getAttribute('viewBox').split(' ')[2] / range).toFixed(1);
        var x = chartX(start, +origin, range, +plot.getAttribute('viewBox').split(' ')[2]);
        if (shade.getAttribute('x') !== x) shade.setAttribute('x', x);
        if (shade.getAttribute('width') !== (partial ? w : '0')) shade.setAttribute('width', partial ? w : '0');
        var note = el.querySelector('[data-chart-partial-note]');
        if (note && note.hidden === partial) note.hidden = !partial;
      }
      el.querySelectorAll('[data-chart-tick]').forEach(function (t) {
        var q = +t.getAttribute('data-chart-tick'), text = chartLabel(end - range + q * range / 4) + (q === 4 ? ' UTC' : '');
        if (t.textContent !== text) t.textContent = text;
      });
    });
    // A lease's bar: what is left of it in twelfths, amber in its last third, red in its
    // last tenth (views/locks.go's leaseBar and leaseBarColor).
    document.querySelectorAll('[data-lease-ms][data-ends-ms]').forEach(function (el) {
      var lease = +el.getAttribute('data-lease-ms'), left = Math.max(+el.getAttribute('data-ends-ms') - now, 0);
      var i = Math.min(Math.max(Math.ceil(left * 12 / lease), 1), 12);
      var colour = left * 3 > lease ? 'bg-indigo-500' : left * 10 > lease ? 'bg-amber-500' : 'bg-rose-500';
      var cls = 'h-full rounded-full ' + (i === 12 ? 'w-full' : 'w-' + i + '/12') + ' ' + colour;
      if (el.className !== cls) el.className = cls;
    });
  }
  // A history chart's frame is stretched to its box (app.css .chart-frame): its labels get the
  // font size that draws them at 10 px across, and the vertical scale that undoes the stretch.
  function fitCharts() {
    document.querySelectorAll('svg[data-chart-frame]').forEach(function (svg) {
      var r = svg.getBoundingClientRect(), box = svg.viewBox && svg.viewBox.baseVal;
      if (!box || !r.width || !r.height) return;
      var sx = r.width / box.width, sy = r.height / box.height;
      var fs = (10 / sx).toFixed(2) + 'px', fy = (sx / sy).toFixed(3);
      if (svg.style.getPropertyValue('--chart-fs') !== fs) svg.style.setProperty('--chart-fs', fs);
      if (svg.style.getPropertyValue('--chart-sy') !== fy) svg.style.setProperty('--chart-sy', fy);
    });
  }
  document.addEventListener('DOMContentLoaded', fitCharts);
  document.addEventListener('htmx:wsAfterMessage', fitCharts);
  if (typeof window.addEventListener === 'function') window.addEventListener('resize', fitCharts);
  // A choice that decides which parts of its form apply (a limiter's algorithm, a source's
  // kind): the parts marked data-for-choice show only while one of theirs is chosen
  // (data-off hides them, app.css).
  document.addEventListener('change', function (e) {
    if (!e.target.matches('[data-choice]')) return;
    var form = e.target.form;
    form.querySelectorAll('[data-for-choice]').forEach(function (el) {
      el.toggleAttribute('data-off', el.getAttribute('data-for-choice').split(' ').indexOf(e.target.value) < 0);
    });
    // A radio choice left checked in a hidden part moves to the first shown one of its group.
    form.querySelectorAll('input[type=radio]:checked').forEach(function (checked) {
      if (!checked.closest('[data-off]')) return;
      var shown = Array.prototype.find.call(form.querySelectorAll('input[type=radio]'), function (r) {
        return r.name === checked.name && !r.closest('[data-off]');
      });
      if (shown) shown.checked = true;
    });
  });

  document.addEventListener('DOMContentLoaded', tick);
  document.addEventListener('htmx:wsAfterMessage', tick);
  setInterval(tick, 1000);

  // Parts that follow the live panels without a topic of their own (the player lookup,
  // data-follows-live) reload after live messages: at most once a second, and always once
  // after the last message, so a change that lands right after a reload still shows.
  var followed = 0, pending = null;
  document.addEventListener('htmx:wsAfterMessage', function () {
    if (pending || !document.querySelector('[data-follows-live]')) return;
    pending = setTimeout(function () {
      pending = null;
      followed = Date.now();
      document.querySelectorAll('[data-follows-live]').forEach(function (el) { htmx.trigger(el, 'live-refresh'); });
    }, Math.max(0, followed + 1000 - Date.now()));
  });
})();
