// Discovery files: 0600 in a 0700 run dir, found while the process lives, removed when it is dead.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSupervisors, writeDiscovery } from '../../bin/server/discovery.js';

let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'yagent-disc-'));
  env = { YAGENT_HOME: home };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const info = (pid: number, startedAt: number) => ({ version: '0.1.0', pid, address: 'http://127.0.0.1:1', token: 'x'.repeat(64), startedAt });

describe('discovery file', () => {
  it('is written 0600 inside a 0700 run directory', () => {
    const path = writeDiscovery(info(process.pid, 1), env);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'run')).mode & 0o777).toBe(0o700);
  });

  it('a file of a dead process is removed; live ones are returned newest first', () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const deadPath = writeDiscovery(info(Number(dead), 5), env);
    writeDiscovery(info(process.pid, 3), env);
    const found = findSupervisors(env);
    expect(found.map((f) => f.pid)).toEqual([process.pid]);
    expect(() => statSync(deadPath)).toThrow();
  });
});
