#!/usr/bin/env node
// Thin launcher: the CLI is compiled TypeScript under dist/ (npm run build).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// the bundle (scripts/bundle-entries.mjs): one file to load instead of ~100 at every start
const main = new URL('../dist/bin/main.bundle.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('yagent: not built yet.\n  where: dist/bin/main.bundle.js is missing\n  fix:   run `npm run build` (or `npm ci` then `npm run build`)\n');
  process.exit(2);
}
await import(main.href);
