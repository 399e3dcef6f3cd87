// Discovery files: written through the store (0600 in a 0700 run dir), found while the process lives, skipped when dead.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSupervisors, pruneDeadDiscoveries, removeDiscovery, writeDiscovery } from '../../bin/server/discovery.js';
import { StoreService } from '../../src/store/service.js';

let home: string;
let env: NodeJS.ProcessEnv;
let store: StoreService;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'yagent-disc-'));
  env = { YAGENT_HOME: home };
  store = new StoreService({ root: home, env });
});
afterEach(async () => {
  await store.shutdown();
  rmSync(home, { recursive: true, force: true });
});

const info = (pid: number, startedAt: number) => ({ version: '0.1.0', pid, address: 'http://127.0.0.1:1', token: 'x'.repeat(64), startedAt });

describe('discovery file', () => {
  it('is written by the store 0600 inside a 0700 run directory, and removed through it', async () => {
    const path = await writeDiscovery(store, info(process.pid, 1));
    expect(path).toBe(join(home, 'run', `supervisor-${process.pid}.json`));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'run')).mode & 0o777).toBe(0o700);
    expect(findSupervisors(env).map((f) => f.pid)).toEqual([process.pid]);
    await removeDiscovery(store, process.pid);
    expect(existsSync(path)).toBe(false);
  });

  it('readers skip the file of a dead process (a crash cannot run the async remove); live ones come newest first', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    await writeDiscovery(store, info(Number(dead), 5));
    await writeDiscovery(store, info(process.pid, 3));
    await writeDiscovery(store, info(process.ppid, 4));
    expect(findSupervisors(env).map((f) => f.pid)).toEqual([process.ppid, process.pid]);
  });

  it('stale files of dead pids are pruned through the store; live ones and foreign names stay', async () => {
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
    await writeDiscovery(store, info(process.pid, 3));
    await writeDiscovery(store, info(process.ppid, 4));
    // a fake file left by a force-quit supervisor, not even valid JSON: the pid in the name decides
    mkdirSync(join(home, 'run'), { recursive: true });
    writeFileSync(join(home, 'run', `supervisor-${dead}.json`), 'torn');
    writeFileSync(join(home, 'run', 'other.json'), '{}');
    const removed: string[] = [];
    const writer = { writeRunFile: store.writeRunFile.bind(store), removeRunFile: async (n: string) => (removed.push(n), store.removeRunFile(n)) };
    expect(await pruneDeadDiscoveries(writer, env)).toEqual([`supervisor-${dead}.json`]);
    expect(removed).toEqual([`supervisor-${dead}.json`]);
    expect(readdirSync(join(home, 'run')).sort()).toEqual(['other.json', `supervisor-${process.pid}.json`, `supervisor-${process.ppid}.json`].sort());
  });
});
