// zpulse's only hand-written script. htmx and its ws extension do the swaps and the
// reconnects; this shows the connection state and each player's rank movement since the page
// opened.
(function () {
  // The badge's text without JavaScript says live updates need it; with it, the state.
  var connText = { connecting: 'Connecting…', open: 'Live', closed: 'Reconnecting…' };
  function setConn(state) {
    document.querySelectorAll('[data-conn]').forEach(function (el) { el.setAttribute('data-conn', state); });
    document.querySelectorAll('.conn-label').forEach(function (el) {
      if (el.textContent !== connText[state]) el.textContent = connText[state];
    });
  }
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
})();
