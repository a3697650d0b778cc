// ESLint over the PWA's own JavaScript (`npx eslint .`): @eslint/js "recommended" and nothing
// more (real mistakes: unused names, undefined globals, unreachable code, empty blocks), no
// style rules. static/js/app.js and static/js/push.js are classic <script src> files
// (templates/base.html, templates/field/app.html, templates/notifications/); static/js/field/*.js
// are ES modules (<script type="module"> in templates/field/app.html and its imports);
// service_worker/sw.js is a classic worker (navigator.serviceWorker.register without type: "module").
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    ignores: ["static/vendor/**", "node_modules/**", ".venv/**", ".venv-*/**", "screenshots/**"],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  js.configs.recommended,
  {
    files: ["static/js/field/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.browser },
    },
  },
  {
    files: ["static/js/app.js", "static/js/push.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "script",
      globals: {
        ...globals.browser,
        // static/vendor/htmx.min.js, loaded before app.js by templates/base.html
        htmx: "readonly",
      },
    },
  },
  {
    files: ["service_worker/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "script",
      globals: { ...globals.serviceworker },
    },
  },
  {
    // this file, run by Node
    files: ["eslint.config.js"],
    languageOptions: {
      sourceType: "module",
      globals: { ...globals.node },
    },
  },
];
