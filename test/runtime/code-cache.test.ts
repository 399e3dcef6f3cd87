// The thread bundles' code cache: used only with the build it came from, refused caches fall back to source,
// chunks load once per thread, and the training run writes what each thread compiled.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { cacheFileFor, loadBundle, wrapCommonJs } from '../../src/runtime/code-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle text as the build writes it: the code, then the line naming its build. */
const stamped = (code: string, build: string): string => `${code}\n//# yagent-build ${build}\n`;

/** The cache V8 makes of `source` after running it (what a training run writes). */
function cacheOf(source: string): Buffer {
  const script = new Script(wrapCommonJs(source));
  (script.runInThisContext() as (e: unknown, r: unknown, m: unknown) => void)({}, () => undefined, { exports: {} });
  return script.createCachedData();
}

let n = 0;
const file = (name: string): string => join(dir, `${++n}-${name}`);

describe('code cache', () => {
  it('a bundle runs from the cache of its own build, never from a cache of another build (V8 checks only the length)', () => {
    const v1 = stamped('exports.v = 1;', 'aaaaaaaaaaaaaaaa');
    const v2 = stamped('exports.v = 2;', 'bbbbbbbbbbbbbbbb'); // a rebuild: same length, other code
    const a = file('a.cjs');
    writeFileSync(a, v1);
    writeFileSync(cacheFileFor(a, 'aaaaaaaaaaaaaaaa'), cacheOf(v1));
    expect(loadBundle(a)).toEqual({ exports: { v: 1 }, cache: 'hit' });
    // the rebuilt bundle ignores the old build's cache and runs its own code
    const b = file('b.cjs');
    writeFileSync(b, v2);
    writeFileSync(cacheFileFor(b, 'aaaaaaaaaaaaaaaa'), cacheOf(v1));
    expect(loadBundle(b)).toEqual({ exports: { v: 2 }, cache: 'miss' });
    // why the build id is needed: V8 itself takes v1's cache for v2's text and runs v1's code
    const script = new Script(wrapCommonJs(v2), { cachedData: cacheOf(v1) });
    const out = { exports: {} as { v?: number } };
    (script.runInThisContext() as (e: unknown) => void)(out.exports);
    expect(script.cachedDataRejected).toBe(false);
    expect(out.exports.v).toBe(1);
  });

  it('a cache V8 refuses (corrupt, or from another node) is reported and the bundle compiles from source', () => {
    const f = file('c.cjs');
    writeFileSync(f, stamped('exports.ok = true;', 'cccccccccccccccc'));
    writeFileSync(cacheFileFor(f, 'cccccccccccccccc'), Buffer.from('not a v8 code cache at all'));
    expect(loadBundle(f)).toEqual({ exports: { ok: true }, cache: 'rejected' });
  });

  it("a bundle's relative .cjs requires (its chunks) load through the loader, once per thread, cycles included; packages map to bundles", () => {
    const sub = join(dir, 'chunks');
    mkdirSync(sub, { recursive: true });
    const x = join(sub, 'x.cjs');
    const y = join(sub, 'y.cjs');
    writeFileSync(x, stamped("exports.name = 'x'; exports.y = () => require('./y.cjs').name; globalThis.__xRuns = (globalThis.__xRuns ?? 0) + 1;", '1111111111111111'));
    writeFileSync(y, stamped("exports.name = 'y'; exports.x = () => require('./x.cjs').name;", '2222222222222222'));
    const pkg = file('pkg.cjs');
    writeFileSync(pkg, stamped("exports.pkg = 'vendored';", '3333333333333333'));
    const entry = join(dir, 'entry.cjs');
    writeFileSync(entry, stamped("const x = require('./chunks/x.cjs'); const y = require('./chunks/y.cjs'); exports.names = [x.name, x.y(), y.x(), require('an-sdk').pkg, require('node:path').sep];", '4444444444444444'));
    expect(loadBundle(entry, { 'an-sdk': pkg }).exports).toEqual({ names: ['x', 'y', 'x', 'vendored', '/'] });
    expect((globalThis as { __xRuns?: number }).__xRuns).toBe(1);
    expect(loadBundle(x).cache).toBe('loaded');
  });

  it('the training run: each thread writes what it compiled, and that cache is accepted for the same build', () => {
    const train = join(dir, 'train');
    mkdirSync(train);
    const f = file('t.cjs');
    writeFileSync(f, stamped('exports.sum = [1, 2, 3].reduce((a, b) => a + b, 0);', 'dddddddddddddddd'));
    const mod = pathToFileURL(resolve('dist/src/runtime/code-cache.js')).href;
    const script = `const c = await import(${JSON.stringify(mod)}); const r = c.loadBundle(${JSON.stringify(f)}); c.flushTrainedCaches(); console.log(JSON.stringify(r));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, YAGENT_CODE_CACHE_TRAIN: train }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ exports: { sum: 6 }, cache: 'miss' });
    const written = readdirSync(train);
    expect(written).toEqual([expect.stringMatching(/^\d+-t\.cjs\.dddddddddddddddd\.\d+\.0\.v8cache$/)]);
    writeFileSync(cacheFileFor(f, 'dddddddddddddddd'), readFileSync(join(train, written[0] ?? '')));
    const again = spawnSync(process.execPath, ['--input-type=module', '-e', `const c = await import(${JSON.stringify(mod)}); console.log(c.loadBundle(${JSON.stringify(f)}).cache);`], { encoding: 'utf8' });
    expect(again.stdout.trim()).toBe('hit');
  });
});
