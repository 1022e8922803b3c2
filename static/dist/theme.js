// The theme, set before the page paints (loaded without defer in <head>, so no flash of the
// wrong colours): "dark" on <html> when the remembered choice is dark, or is "system" (the
// default) and the system prefers dark. app.js offers the switch and remembers the choice.
(function () {
  var key = 'zpulse-theme';
  var media = window.matchMedia('(prefers-color-scheme: dark)');
  var picked = null; // the choice when storage is refused (private mode): this page only
  function choice() {
    try { return localStorage.getItem(key) || picked || 'system'; } catch (e) { return picked || 'system'; }
  }
  function apply() {
    var c = choice();
    document.documentElement.classList.toggle('dark', c === 'dark' || (c === 'system' && media.matches));
  }
  apply();
  // Scripts run: CSS may hide what a script shows on demand (html.js, app.css).
  document.documentElement.classList.add('js');
  media.addEventListener('change', apply);
  window.zpulseTheme = {
    get: choice,
    set: function (c) {
      picked = c;
      try { localStorage.setItem(key, c); } catch (e) { /* kept in picked */ }
      apply();
    }
  };
})();
