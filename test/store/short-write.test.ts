// A short write (the file-size limit or a full disk reached mid-write) is never a silent torn tail: the
// rollout writer writes the rest, the next write fails, and drain() rejects. Runs in a child process under
// `ulimit -f` with SIGXFSZ ignored; the writer is the compiled one.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempRoot } from './helpers.js';

const t = tempRoot('yagent-short-');
afterAll(() => t.cleanup());

const CHILD = `
const { RolloutWriter } = await import(process.argv[1]);
const { DEFAULT_POLICY } = await import(process.argv[2]);
const { realClock } = await import(process.argv[3]);
const w = await RolloutWriter.open(process.argv[4], DEFAULT_POLICY, realClock);
w.enqueue([{ type: 'response_item', ts: 1, payload: { role: 'user', content: 'x'.repeat(3000) } }]);
try { await w.drain(); console.log('drained'); } catch (e) { console.log('rejected ' + e.code); }
`;

describe('rollout writer under a file-size limit', () => {
  it('a record cut short by the limit makes drain() reject instead of resolving over a torn tail', () => {
    const dist = (p: string): string => resolve('dist', p);
    expect(existsSync(dist('src/store/rollout/writer.js')), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
    const file = join(t.dir, 'r.jsonl');
    const r = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 2; exec "${process.execPath}" --input-type=module -e "$0" "$@"`, CHILD,
      dist('src/store/rollout/writer.js'), dist('src/store/rollout/policy.js'), dist('src/runtime/clock.js'), file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(statSync(file).size).toBe(2048); // the kernel wrote what the limit allowed
    expect(r.stdout.trim()).toBe('rejected EFBIG');
  });
});
