// zpulse's only hand-written script. htmx and its ws extension do the swaps and the
// reconnects; this shows the connection state and each player's rank movement since the page
// opened.
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
})();
