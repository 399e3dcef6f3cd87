// Issue 22 (bounded resources) through the real CLI: read_file refuses FIFOs, devices and other non-regular files.
// A FIFO in the workspace blocked it forever (no -y needed: the workspace is free to read); /dev/zero with -y grew the
// process to 5.1 GB. A /proc file (regular, size 0) still reads, bounded by the 10 MB limit.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codingDoes, KEY_CONFIG, toolResults, withSecrets } from './exfil-helpers.js';
import { project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

describe('read_file reads regular files only', () => {
  it('a FIFO in the workspace and /dev/zero (-y) are refused at once; /proc/self/status still reads', async () => {
    sb = sandbox(KEY_CONFIG);
    const ws = project(sb);
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const seen = join(sb.dir, 'requests.jsonl');
    writeFileSync(seen, '');
    const script = codingDoes(
      [
        { name: 'read_file', args: { path: 'pipe' } },
        { name: 'read_file', args: { path: '/dev/zero' } },
        { name: 'read_file', args: { path: '/dev/null' } },
        { name: 'read_file', args: { path: '/proc/self/status' } },
      ],
      seen,
    );
    const r = await runCli(['-p', 'read them', '-y', '--output-format', 'json'], withSecrets(withScript(sb, script)), { cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    const [fifo, zero, nul, status] = toolResults(seen);
    expect(fifo).toMatch(/not_a_file.*FIFO/);
    expect(zero).toMatch(/not_a_file.*character device/);
    expect(nul).toMatch(/not_a_file.*character device/);
    expect(status).toMatch(/Name:/);
  });
});
