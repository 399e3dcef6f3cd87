import { defineConfig } from 'vitest/config';

// Workers run the compiled dist/ (built by `npm test` first); tests import src/ directly.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // every test's temp dirs live under one run directory, removed at the end (test/global-setup.ts)
    globalSetup: ['test/global-setup.ts'],
    expect: { requireAssertions: true },
    reporters: ['default', ['json', { outputFile: 'dist/test-report.json' }]],
  },
});
