// Lint: typescript-eslint with type information. The tools live in tools/lint (see its package.json
// for why); `npm test` installs them and runs `npm run lint:eslint`. This file stays at the repo
// root so that every workspace is inside ESLint's base path.
import tseslint from './tools/lint/node_modules/typescript-eslint/dist/index.js';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/.turbo/**', '**/coverage/**', 'tools/**', 'scripts/**', 'infra/**', '**/*.cjs', '**/*.mjs', '**/*.js'],
  },
  {
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts', 'test/**/*.ts', 'bench/src/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its error: handle it, or mark a fire-and-forget with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a sync one is expected (event emitters, Array#forEach...).
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union must name every member (or have a default that says why).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'smart'],
    },
  },
);
