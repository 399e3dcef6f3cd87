// Peak RSS (issue 29): every thread keeps its bundle's source as a V8 string for lazy compilation, and one non-ASCII
// character made the whole text two bytes a character; comments were most of them. The bundles are ASCII (strings
// escaped, same values) without comments: a 20-step run's peak RSS 110 -> 103 MB (bench/AGENTS.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { THREADS } from '../../bin/host/boot-plan.js';
import { distRoot } from '../../src/runtime/dist-paths.js';
import { GOOD_CONFIG, runCli, sandbox, withScript } from './helpers.js';

it("the CLI's, the threads' and the SDKs' code-cached bundles are ASCII without comments, and keep their non-ASCII strings", async () => {
  const chunks = readdirSync(join(distRoot(), 'bin', 'chunks')).filter((f) => f.endsWith('.cjs')).map((f) => join('bin', 'chunks', f));
  const bundles = ['bin/main.cjs', 'bin/early-boot.cjs', ...chunks, ...THREADS.flatMap((t) => [t.bundle, ...Object.values(t.requires ?? {})])];
  expect(bundles.length).toBeGreaterThan(5);
  for (const rel of bundles) {
    const text = readFileSync(join(distRoot(), rel), 'utf8');
    expect(/[^\x00-\x7f]/.exec(text)?.[0], `${rel} holds a non-ASCII character`).toBeUndefined();
    expect(/^\s*\/\*\*\s/m.test(text), `${rel} keeps doc comments`).toBe(false);
  }
  // an escaped string is the same string: the usage line's middle dots come out of the CLI's bundle as written
  const sb = sandbox(GOOD_CONFIG);
  try {
    const r = await runCli(['-d', 'all', '-p', 'hi'], withScript(sb, 'export default { director: [{ text: "hello", finishReason: "stop" }] };\n'), { cwd: sb.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/usage: .* in \/ .* out \u00b7 1 calls? \u00b7/);
  } finally {
    sb.cleanup();
  }
}, 60_000);
