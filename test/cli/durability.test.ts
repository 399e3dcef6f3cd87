// Durability errors are never swallowed, end to end: the CLI runs under a file-size limit (`ulimit -f`, SIGXFSZ
// ignored, so a write past it fails with EFBIG like a full disk); the run's final store flush fails, and the
// CLI says so on stderr and exits 1.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, collect, GOOD_CONFIG, sandbox, withScript, type Sandbox } from './helpers.js';
import { DELEGATING } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

describe('durability errors through the CLI', () => {
  it('a failing final flush of the store is a stderr line and exit 1', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'package.json'), '{"name":"yagent-fixture"}\n');
    // 2 KiB: a rollout outgrows it at once; the limit and the ignored signal are inherited by node
    const child = spawn('bash', ['-c', `trap '' XFSZ; ulimit -f 2; exec "${process.execPath}" "${BIN}" -p "name?"`], { env: withScript(sb, DELEGATING), cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
    const r = await collect(child);
    expect(r.stderr).toMatch(/yagent: durability error: store flush: .*EFBIG/);
    expect(r.code).toBe(1);
  });

  it("a failing stop() hook of the store (its final task-memory flush) is named on stderr and exit 1", async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(sb.home, 'tasks'), 'a file where the task memory directory must go\n'); // every task-memory write fails
    const r = await collect(spawn(process.execPath, [BIN, '-p', 'name?'], { env: withScript(sb, DELEGATING), cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(r.stderr).toMatch(/yagent: durability error: .*store stop: task memory flush failed/);
    expect(r.code).toBe(1);
  });
});
