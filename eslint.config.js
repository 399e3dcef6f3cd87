// Lint encodes hygiene and direction: protocol <- runtime <- actors/store <- bin (never back).
import tseslint from 'typescript-eslint';

const direction = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

/** `TaskGroup.go` / `NamedTasks.go`: the runtime owns, names, reports and drains what they start. */
const NAMED_TASK_CALLS = [
  { from: 'file', name: 'go', path: 'src/runtime/actor.ts' },
  { from: 'file', name: 'go', path: 'src/runtime/tasks.ts' },
];
const DETACHED = 'a detached promise outside src/runtime: await it, or start it as a named task with ctx.tasks.go / runtime.tasks.go';
const DETACHED_PROMISE_SYNTAX = [
  // `void p` on a promise is caught by no-floating-promises (ignoreVoid: false); a handled chain is not
  { selector: "UnaryExpression[operator='void'] > CallExpression[callee.property.name=/^(catch|then|finally)$/]", message: `void p.catch(...): ${DETACHED}` },
  { selector: "ExpressionStatement > CallExpression[callee.property.name=/^(catch|then|finally)$/][callee.object.type='CallExpression']", message: `call().catch(...) as a statement: ${DETACHED}` },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bin/yagent.js', 'test/fixtures/**/*.js', '**/*.mjs', 'eslint.config.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/runtime/protocol/**/*.ts'],
    rules: direction(['**/runtime/*', '**/runtime/**/!(protocol)/**', '**/store/**', '**/actors/**', '**/bin/**', 'node:*'], 'protocol is a leaf: it imports only zod'),
  },
  {
    files: ['src/runtime/**/*.ts'],
    ignores: ['src/runtime/protocol/**'],
    rules: direction(['**/store/**', '**/actors/**', '**/bin/**'], 'runtime must not import store, actors or bin'),
  },
  {
    files: ['src/store/**/*.ts'],
    rules: direction(['**/actors/**', '**/bin/**'], 'store must not import actors or bin'),
  },
  {
    files: ['src/actors/**/*.ts'],
    rules: direction(['**/bin/**'], 'actors must not import bin'),
  },
  {
    // Outside the runtime a promise is awaited or handed to a named task (`ctx.tasks.go`, drainable and
    // reported); `void p`, `void p.catch(...)` and `call().catch(...)` would detach it, so all three are errors.
    files: ['src/store/**/*.ts', 'src/actors/**/*.ts', 'bin/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false, allowForKnownSafeCalls: NAMED_TASK_CALLS }],
      'no-restricted-syntax': ['error', ...DETACHED_PROMISE_SYNTAX],
    },
  },
);
