// Post-build step of `npm run build`: zod as ONE module at dist/node_modules/zod, so every compiled file's
// `import 'zod'` resolves there (Node looks in the nearest node_modules first) instead of ~95 files.
// Every thread (CLI, agent workers, store worker) loads zod at start: one file halves its load time and
// saves ~7 MB per thread (bench: `npm run bench -- cli`). Compiled files are not rewritten, so a plain
// `tsc` build still runs (on the same zod version: the bundle is rebuilt whenever the version differs).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'node_modules', 'zod');
const target = join(root, 'dist', 'node_modules', 'zod');
const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
const manifest = join(target, 'package.json');

if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version && existsSync(join(target, 'index.js'))) {
  process.exit(0);
}
mkdirSync(target, { recursive: true });
const bundle = await rolldown({ input: join(source, 'index.js'), platform: 'node', logLevel: 'warn' });
await bundle.write({ file: join(target, 'index.js'), format: 'esm' });
await bundle.close();
// only the root entry: src and bin import nothing but 'zod' (a deep import would fail loudly here, not drift)
writeFileSync(manifest, `${JSON.stringify({ name: 'zod', version, private: true, type: 'module', exports: { '.': './index.js' } }, null, 2)}\n`);
