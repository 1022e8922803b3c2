/** @type {import('tailwindcss').Config} */
module.exports = {
  content: ['./views/**/*.templ', './views/**/*.go', '!./views/**/*_test.go', './static/src/**/*.js'],
  // The theme switch (system, light, dark) puts class="dark" on <html>: static/src/theme.js.
  darkMode: 'class',
  theme: {
    extend: {
      fontFamily: {
        sans: ['Inter', 'ui-sans-serif', 'system-ui', '-apple-system', 'Segoe UI', 'Roboto', 'sans-serif'],
        mono: ['ui-monospace', 'SFMono-Regular', 'Menlo', 'Consolas', 'monospace'],
      },
    },
  },
  plugins: [],
};
