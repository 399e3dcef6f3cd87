#!/usr/bin/env node
// Repository guards (the seeds' §9.2 in TypeScript form). Run by `npm test`; each rule has a
// fixture in test/guards.test.ts that makes it fire.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAX_SOURCE_LINES = 400;
export const MAX_TEST_LINES = 500;

/** The one function allowed to do tmp + rename, and the tool whose job is renaming user files. */
export const RENAME_ALLOWED = new Set(['src/runtime/atomic-write.ts', 'src/actors/tools/rename_file.ts']);

/** Where a detached `void p.catch(...)` is refused (bin/ joins once its owner has converted it). */
export const DETACHED_SCOPE = /^(src\/(store|actors)|bin)\//;
/** The `void` operator (statement start, after `=>`, `(` or `,`; not a `Promise<void>` type) on a handled chain. */
const DETACHED_RE = /(?:^|[;{(,]|=>)[ \t]*void[ \t]+[^;\n]*\.(?:catch|then|finally)[ \t]*\(/m;

/** Layer of a repo-relative path; imports may only point to the same or a lower layer. */
function layerOf(rel) {
  if (rel.startsWith('src/runtime/protocol/')) return 0;
  if (rel.startsWith('src/runtime/')) return 1;
  if (rel.startsWith('src/store/') || rel.startsWith('src/actors/')) return 2;
  if (rel.startsWith('bin/')) return 3;
  return -1;
}

/** Test doubles and fixtures: they depend on the code they stand in for, never the reverse. */
const FAKE_RE = /(^|\/)(fake|testing)\//;
/** The store's outward modules (what actors import); the store's own internals never go through them. */
const STORE_CLIENT_RE = /^src\/store\/client[^/]*$/;

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function checkTree(root) {
  const violations = [];
  const add = (rule, file, msg) => violations.push({ rule, file, msg });
  const files = ['src', 'bin', 'bench', 'test', 'scripts'].flatMap((d) => walk(join(root, d)));
  for (const abs of files) {
    const rel = relative(root, abs).split(sep).join('/');
    if (rel.startsWith('test/fixtures/guards/')) continue;
    const text = readFileSync(abs, 'utf8');
    const lines = text.split('\n').length;
    const isTest = rel.startsWith('test/');
    const inSrc = rel.startsWith('src/') || rel.startsWith('bin/');

    // file-size ratchet
    const limit = isTest ? MAX_TEST_LINES : MAX_SOURCE_LINES;
    if (lines > limit) add('file-size', rel, `${lines} lines > ${limit}: split it by role`);

    // workers start only through the runtime
    if (inSrc && !rel.startsWith('src/runtime/') && /\bworker_threads\b|new\s+Worker\s*\(/.test(text)) {
      add('no-worker-outside-runtime', rel, 'worker_threads / new Worker outside src/runtime');
    }
    // background promises and timers loops only through the runtime's named tasks
    if (inSrc && !rel.startsWith('src/runtime/') && /\bsetInterval\s*\(/.test(text)) {
      add('no-background-outside-runtime', rel, 'setInterval outside src/runtime: use a named task');
    }
    // the type-free twin of the lint rule, so `vitest run` alone catches it: `void p.catch(...)` detaches a promise
    if (DETACHED_SCOPE.test(rel) && DETACHED_RE.test(text)) {
      add('no-detached-promise', rel, 'void <promise>.catch/then(...) outside src/runtime: await it or start a named task (ctx.tasks.go)');
    }
    // one atomic-write function
    if (inSrc && !RENAME_ALLOWED.has(rel) && /\brename(Sync)?\s*\(/.test(text)) {
      add('one-atomic-write', rel, 'rename() outside src/runtime/atomic-write.ts: call atomicWrite()');
    }
    // import direction
    const layer = layerOf(rel);
    if (layer >= 0) {
      for (const m of text.matchAll(importRe)) {
        const spec = m[1] ?? m[2];
        if (!spec) continue;
        if (layer === 0 && !spec.startsWith('./') && spec !== 'zod') {
          add('import-direction', rel, `protocol is a leaf and may import only zod and itself, not ${spec}`);
          continue;
        }
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(dirname(abs), spec)).split(sep).join('/');
        const tl = layerOf(target);
        if (tl > layer) add('import-direction', rel, `imports ${target} from a higher layer`);
        if (rel.startsWith('src/store/') && target.startsWith('src/actors/')) add('import-direction', rel, `store imports actors (${target})`);
        if (rel.startsWith('src/actors/') && target.startsWith('src/store/') && !/^src\/store\/(client|api|types)[^/]*$/.test(target.replace(/\.js$/, '')))
          add('import-direction', rel, `actors may import only the store's client/api/types, not ${target}`);
        if (rel.startsWith('src/') && !FAKE_RE.test(rel) && FAKE_RE.test(target))
          add('no-fake-import', rel, `production code imports a test double or fixture (${target}): move what it needs to the production side`);
        const bare = target.replace(/\.js$/, '');
        if (rel.startsWith('src/store/') && !STORE_CLIENT_RE.test(rel.replace(/\.ts$/, '')) && !FAKE_RE.test(rel) && STORE_CLIENT_RE.test(bare))
          add('no-client-in-store', rel, `store internals import the store's own client module (${target}): import the core module it re-exports`);
      }
    }
    // test hygiene
    if (isTest && rel.endsWith('.test.ts')) {
      if (/(^|[^'"\w.])(it|test|describe)\.only\s*\(/.test(text)) add('test-hygiene', rel, '.only left in a test');
      if (/(^|[^'"\w.])(it|test|describe)\.skip\s*\(/.test(text)) add('test-hygiene', rel, 'bare .skip: use skipIf(condition)');
      if (!/\bexpect\s*[.(]/.test(text)) add('test-hygiene', rel, 'test file without a single expect');
    }
  }
  return violations;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const v = checkTree(root);
  for (const x of v) console.error(`guard ${x.rule}: ${x.file}: ${x.msg}`);
  if (v.length > 0) {
    console.error(`${v.length} guard violation(s)`);
    process.exit(1);
  }
  console.log('guards: ok');
}
