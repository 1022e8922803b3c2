// zpulse's only hand-written script: the connection indicator. htmx and its ws extension do
// the rest (swaps, reconnects with backoff).
(function () {
  function setConn(state) {
    document.querySelectorAll('[data-conn]').forEach(function (el) { el.setAttribute('data-conn', state); });
  }
  document.addEventListener('htmx:wsConnecting', function () { setConn('connecting'); });
  document.addEventListener('htmx:wsOpen', function () { setConn('open'); });
  document.addEventListener('htmx:wsClose', function () { setConn('closed'); });
  document.addEventListener('htmx:wsError', function () { setConn('closed'); });
})();
