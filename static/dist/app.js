// zpulse's only hand-written script. htmx and its ws extension do the swaps and the
// reconnects; this shows the connection state, each player's rank movement since the page
// opened, and moments relative to the browser's clock.
(function () {
  function setConn(state) {
    document.querySelectorAll('[data-conn]').forEach(function (el) { el.setAttribute('data-conn', state); });
  }
  document.addEventListener('htmx:wsConnecting', function () { setConn('connecting'); });
  document.addEventListener('htmx:wsOpen', function () { setConn('open'); });
  document.addEventListener('htmx:wsClose', function () { setConn('closed'); });
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
      var text = '', cls = 'move shrink-0 text-xs font-semibold ';
      if (was === undefined) { text = 'new'; cls += 'text-sky-600 dark:text-sky-400'; }
      else if (now < was) { text = '▲' + (was - now); cls += 'text-emerald-600 dark:text-emerald-400'; }
      else if (now > was) { text = '▼' + (now - was); cls += 'text-rose-600 dark:text-rose-400'; }
      cell.textContent = text;
      cell.className = cls;
      cell.setAttribute('data-move', text);
      cell.title = text ? 'since this page opened' : '';
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
    d -= d % 1000; // whole seconds, as the server showed them
    if (d > -1000 && d < 1000) return 'now';
    return d > 0 ? 'in ' + duration(d) : duration(-d) + ' ago';
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll('[data-at-ms]').forEach(function (el) {
      var text = relative(el, now);
      if (el.textContent !== text) el.textContent = text;
      var past = +el.getAttribute('data-at-ms') <= now;
      if (past !== el.hasAttribute('data-past')) el.toggleAttribute('data-past', past);
    });
  }
  document.addEventListener('DOMContentLoaded', tick);
  document.addEventListener('htmx:wsAfterMessage', tick);
  setInterval(tick, 1000);
})();
