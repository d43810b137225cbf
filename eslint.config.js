// ESLint for the promise and switch mistakes the compiler lets through: a promise nobody awaits or
// catches (an unhandled rejection kills the process), an async function where a callback's return
// is ignored, a switch that silently misses a new union member. Only these type-aware rules, not a
// style set: `tsc` and the layering check (`npm run lint:layers`) cover the rest.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['**/node_modules/**', '**/dist/**', 'test/helm-render/**'] },
  {
    files: ['shared/**/*.ts', 'services/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's runner tracks the tests it is handed and reports their failures; the promise
        // these return never rejects. A subtest through `t.test` must still be awaited.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A `default` is a deliberate catch-all (often an error for a value off the wire), so it
      // counts as exhaustive; a switch without one must name every member of the union.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true, allowDefaultCaseForExhaustiveSwitch: true }],
    },
  },
  {
    // Files and functions a reader can hold in their head: a module is one concept, and a long
    // closure factory is a small class or module of named steps instead. A function that is
    // better whole (a lexer's one loop, a table) says why beside an eslint-disable comment.
    // Tests are exempt: a suite reads as a list of cases, however long.
    files: ['shared/**/*.ts', 'services/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test/**'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
);
