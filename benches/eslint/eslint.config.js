// Enables only `no-unchecked-breakpoint` from the local plugin on every
// JavaScript file of the benchmark corpus (ESLint's defaults: **/*.js,
// **/*.mjs, **/*.cjs; node_modules and .git ignored; dot-directories such
// as .a5c/processes are linted).
import babysitter from './plugin.js';

export default [
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'commonjs' },
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { babysitter },
    rules: { 'babysitter/no-unchecked-breakpoint': 'error' },
  },
];
