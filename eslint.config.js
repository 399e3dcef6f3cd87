// Lint encodes hygiene and direction: protocol <- runtime <- actors/store <- bin (never back).
import tseslint from 'typescript-eslint';

const direction = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

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
);
