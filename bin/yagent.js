#!/usr/bin/env node
// Thin launcher: the CLI is compiled TypeScript under dist/ (npm run build).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const main = new URL('../dist/bin/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('yagent: not built yet.\n  where: dist/bin/main.js is missing\n  fix:   run `npm run build` (or `npm ci` then `npm run build`)\n');
  process.exit(2);
}
await import(main.href);
