// Pins batches on the REAL profiles (pitfall 33): admission, parallelism limit, order, and exactly one
// result per call under cancellation and fatal errors.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isParallelizable, planBatches, runBatch } from '../../src/actors/tools/batch.js';
import { AGENT_KINDS, surfaceFor } from '../../src/actors/tools/profiles.js';
import { defineTool, readTags } from '../../src/actors/tools/define.js';
import { FatalToolError } from '../../src/actors/tools/adapter.js';
import type { ToolDeclaration } from '../../src/actors/tools/types.js';
import { call, makeDeps, tempDir } from './helpers.js';

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
  for (let i = 0; i < 8; i++) writeFileSync(join(ws.path, `f${i}.txt`), `line ${i}\n`);
});
afterEach(() => ws.cleanup());

const reads = (n: number) => Array.from({ length: n }, (_, i) => call('read_file', { path: `f${i}.txt` }));

describe('concurrency admission (real profiles)', () => {
  it('every surface: exactly the non-mutating, non-serial tools are parallel; write delegations only as isolated writers', () => {
    for (const agent of AGENT_KINDS.filter((a) => a !== 'custom')) {
      for (const d of surfaceFor(agent).list()) {
        expect(isParallelizable(d), `${agent}/${d.name}`).toBe(!d.tags.mutates && !d.tags.serial);
        if (d.tags.effect === 'fs_write' || d.tags.effect === 'shell') expect(isParallelizable(d, false, true)).toBe(false);
        // the one relaxed rule (issue 26): a mutating call beside others is a write delegation in its own worktree
        const isolated = d.tags.mutates && isParallelizable(d, false, true);
        expect(isolated, `${agent}/${d.name}`).toBe(d.tags.effect === 'delegate' && d.tags.isolatedWriter === true);
      }
    }
    expect(surfaceFor('director').get('delegate_coding')?.tags.isolatedWriter).toBe(true);
    expect(surfaceFor('director').get('delegate_devops')?.tags.isolatedWriter).toBe(true);
  });

  it('coding surface: reads are grouped, a write splits the run', () => {
    const deps = makeDeps(ws.path, { agent: 'coding' });
    const calls = [...reads(2), call('grep', { pattern: 'x' }), call('list_dir', {}), call('create_file', { path: 'n', content: '' }), ...reads(2), call('run_bash', { command: 'true', is_dangerous: false })];
    expect(planBatches(calls, deps)).toEqual([[0, 1, 2, 3], [4], [5, 6], [7]]);
  });

  it('director runs read-only delegations together, delegate_coding alone; repo runs delegate_devops alone', () => {
    const dir = makeDeps(ws.path, { agent: 'director' });
    const d = [call('delegate_repo', { task: 'a' }), call('delegate_chat', { task: 'b' }), call('delegate_coding', { task: 'c' })];
    expect(planBatches(d, dir)).toEqual([[0, 1], [2]]);
    const repo = makeDeps(ws.path, { agent: 'repo' });
    expect(planBatches([call('read_file', { path: 'x' }), call('delegate_devops', { task: 'x' })], repo)).toEqual([[0], [1]]);
  });

  it('in a batch marked isolatedWriters (a git workspace), write delegations run together with the rest; file writers never', () => {
    const dir = makeDeps(ws.path, { agent: 'director' });
    const d = [call('delegate_coding', { task: 'a' }), call('delegate_repo', { task: 'b' }), call('delegate_coding', { task: 'c' }), call('delegate_devops', { task: 'd' })];
    expect(planBatches(d, dir, true)).toEqual([[0, 1, 2, 3]]);
    expect(planBatches(d, dir, false)).toEqual([[0], [1], [2], [3]]);
    const coding = makeDeps(ws.path, { agent: 'coding' });
    expect(planBatches([call('create_file', { path: 'n', content: '' }), call('run_bash', { command: 'true', is_dangerous: false })], coding, true)).toEqual([[0], [1]]);
  });

  it('an unloaded cold call is parallel (it only gets the teach receipt and does not run)', async () => {
    let ran = 0;
    const ext = defineTool({ name: 'mcp__s__t', description: 'Ext.', schema: z.object({ q: z.string() }), tags: { ...readTags({ brief: () => '' }), serial: true }, execute: () => ((ran += 1), Promise.resolve({ kind: 'ok' as const, content: 'ran' })) }) as ToolDeclaration;
    const deps = makeDeps(ws.path, { surface: surfaceFor('coding', { external: [ext] }) });
    const calls = [call('read_file', { path: 'f0.txt' }), call('mcp__s__t', { q: 'x' })];
    expect(planBatches(calls, deps)).toEqual([[0, 1]]);
    const out = await runBatch(calls, deps, { signal: new AbortController().signal });
    expect(out.results[1]?.content).toMatch(/did not run.*"q"/s);
    expect(ran).toBe(0);
    expect(planBatches(calls, deps)).toEqual([[0], [1]]);
    await runBatch([calls[1] ?? call('x', {})], deps, { signal: new AbortController().signal });
    expect(ran).toBe(1);
  });
});

describe('batch execution', () => {
  it('read-only calls run in parallel up to the limit; 1 = serial', async () => {
    const trace = async (maxParallel: number): Promise<string> => {
      const log: string[] = [];
      await runBatch(reads(4), makeDeps(ws.path), { maxParallel, signal: new AbortController().signal, onStart: () => log.push('S'), onResult: () => log.push('R') });
      return log.join('');
    };
    expect(await trace(4)).toBe('SSSSRRRR');
    expect(await trace(2)).toMatch(/^SS/);
    expect(await trace(2)).not.toBe('SSSSRRRR');
    expect(await trace(1)).toBe('SRSRSRSR');
  });

  it('results come back in call order with one result per call id', async () => {
    const calls = [...reads(8), call('read_file', { path: 'missing.txt' })];
    const out = await runBatch(calls, makeDeps(ws.path), { maxParallel: 8, signal: new AbortController().signal });
    expect(out.results.map((r) => r.callId)).toEqual(calls.map((c) => c.id));
    expect(out.results[3]?.content).toMatch(/line 3/);
    expect(out.results[8]?.status).toBe('error');
  });

  it('max_parallel_readonly_tools is 1..8', async () => {
    const deps = makeDeps(ws.path);
    const signal = new AbortController().signal;
    await expect(runBatch(reads(1), deps, { maxParallel: 9, signal })).rejects.toThrow();
    await expect(runBatch(reads(1), deps, { maxParallel: 0, signal })).rejects.toThrow();
    expect((await runBatch(reads(1), deps, { maxParallel: 8, signal })).results).toHaveLength(1);
  });

  it('cancellation mid-batch: every call still gets exactly one result, in order; later calls do not run', async () => {
    const ac = new AbortController();
    const calls = [call('read_file', { path: 'f0.txt' }), call('run_bash', { command: 'sleep 30', is_dangerous: false }), call('read_file', { path: 'f1.txt' }), call('create_file', { path: 'late.txt', content: 'x' })];
    const t0 = Date.now();
    // the cancel comes once the long call is under way (the event), not after a fixed time the first read may outlast
    const out = await runBatch(calls, makeDeps(ws.path), { signal: ac.signal, onStart: (c) => {
      if (c.name === 'run_bash') setImmediate(() => ac.abort());
    } });
    expect(Date.now() - t0).toBeLessThan(20_000); // far below the 30 s sleep: the cancel ended it
    expect(out.results.map((r) => [r.callId, r.status])).toEqual([
      [calls[0]?.id, 'ok'],
      [calls[1]?.id, 'cancelled'],
      [calls[2]?.id, 'cancelled'],
      [calls[3]?.id, 'cancelled'],
    ]);
    expect(existsSync(join(ws.path, 'late.txt'))).toBe(false);
  });

  it('a fatal call ends the batch: the fatal error is reported and later calls are cancelled results', async () => {
    const boom = defineTool({ name: 'boom', description: 'x', schema: z.object({}), tags: { ...readTags({ brief: () => '' }), serial: true }, execute: () => Promise.reject(new FatalToolError('gone')) }) as ToolDeclaration;
    const surface = surfaceFor('coding', { registry: [...surfaceFor('coding').list(), boom] });
    const calls = [call('read_file', { path: 'f0.txt' }), call('boom', {}), call('create_file', { path: 'after.txt', content: '' })];
    const out = await runBatch(calls, makeDeps(ws.path, { surface }), { signal: new AbortController().signal });
    expect(out.fatal).toMatchObject({ name: 'FatalToolError', message: 'gone' });
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'fatal', 'cancelled']);
    expect(existsSync(join(ws.path, 'after.txt'))).toBe(false);
  });
});

describe('write-ahead record (issue 24 item 3)', () => {
  it('each call that can change anything runs only after its write-ahead resolves; reads never wait for one', async () => {
    const deps = makeDeps(ws.path, { agent: 'coding' });
    const order: string[] = [];
    const calls = [call('read_file', { path: 'f0.txt' }), call('run_bash', { command: `echo x >> ${join(ws.path, 'side')}`, is_dangerous: false }), call('create_file', { path: 'n.txt', content: 'n' })];
    const out = await runBatch(calls, deps, {
      signal: new AbortController().signal,
      beforeEffect: (c) => {
        // what the effect will have done must not be visible yet: the record comes first
        order.push(`${c.name}:${existsSync(join(ws.path, 'side')) ? 'side' : '-'}:${existsSync(join(ws.path, 'n.txt')) ? 'n' : '-'}`);
        return Promise.resolve();
      },
    });
    expect(order).toEqual(['run_bash:-:-', 'create_file:side:-']);
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
  });

  it('a write-ahead that fails: the call does not run and says why', async () => {
    const deps = makeDeps(ws.path, { agent: 'coding' });
    const out = await runBatch([call('create_file', { path: 'n.txt', content: 'n' })], deps, { signal: new AbortController().signal, beforeEffect: () => Promise.reject(new Error('disk full')) });
    expect(out.results[0]?.status).toBe('error');
    expect(out.results[0]?.content).toMatch(/not_recorded.*disk full/);
    expect(existsSync(join(ws.path, 'n.txt'))).toBe(false);
  });
});
