// Pins the adapter: order parse → boundary → authorization → execute, the two error channels, one result per call.
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callTool, FatalToolError } from '../../src/actors/tools/adapter.js';
import { defineTool, readTags } from '../../src/actors/tools/define.js';
import { Surface } from '../../src/actors/tools/surface.js';
import { WorkspaceGuard, type GuardReason } from '../../src/actors/tools/workspace-guard.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import type { ToolDeclaration } from '../../src/actors/tools/types.js';
import { call, makeDeps, tempDir } from './helpers.js';

let ws: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;
const signal = new AbortController().signal;
beforeEach(() => {
  ws = tempDir();
  outside = tempDir('yagent-outside-');
});
afterEach(() => {
  ws.cleanup();
  outside.cleanup();
});

/** Records the order the adapter reaches each stage. */
function recording(decision: Awaited<ReturnType<Authorizer>>): { log: string[]; authorizer: Authorizer; guard: WorkspaceGuard } {
  const log: string[] = [];
  const guard = new (class extends WorkspaceGuard {
    override async check(d: ToolDeclaration, a: Record<string, unknown>): Promise<GuardReason[]> {
      log.push('guard');
      return super.check(d, a);
    }
  })(ws.path);
  const authorizer: Authorizer = (req) => {
    log.push(`auth:${req.tool}`);
    return Promise.resolve(decision);
  };
  return { log, authorizer, guard };
}

describe('adapter order', () => {
  it('invalid JSON is a result and nothing else runs', async () => {
    const r = recording({ decision: 'approved', scope: 'once' });
    const deps = { ...makeDeps(ws.path, { authorizer: r.authorizer }), guard: r.guard };
    const res = await callTool(call('create_file', '{"path": "a.txt", '), deps, signal);
    expect(res.status).toBe('error');
    expect(JSON.parse(res.content)).toMatchObject({ error: { kind: 'invalid_json' } });
    expect(r.log).toEqual([]);
  });

  it('a call the output limit cut is never run, even when its arguments happen to parse: its result says cut and how to send less', async () => {
    const r = recording({ decision: 'approved', scope: 'once' });
    const deps = { ...makeDeps(ws.path, { authorizer: r.authorizer }), guard: r.guard };
    const res = await callTool({ ...call('create_file', { path: 'a.txt', content: 'x' }), truncated: true }, deps, signal);
    const body = JSON.parse(res.content) as { error: { kind: string; message: string } };
    expect([res.status, body.error.kind]).toEqual(['error', 'truncated']);
    expect(body.error.message).toMatch(/cut off: the answer reached the output token limit.*nothing was run.*smaller calls/);
    expect(r.log).toEqual([]);
    expect(existsSync(join(ws.path, 'a.txt'))).toBe(false);
  });

  it('schema errors are phrased for the model to fix its call, before the guard', async () => {
    const r = recording({ decision: 'approved', scope: 'once' });
    const deps = { ...makeDeps(ws.path, { authorizer: r.authorizer }), guard: r.guard };
    const res = await callTool(call('create_file', { path: 5 }), deps, signal);
    const body = JSON.parse(res.content) as { error: { kind: string; message: string } };
    expect(body.error.kind).toBe('invalid_arguments');
    expect(body.error.message).toMatch(/argument "path".*argument "content".*Fix these and call create_file again/s);
    expect(r.log).toEqual([]);
  });

  it('boundary check, then authorization, then execute (file appears only after approval)', async () => {
    const target = join(outside.path, 'new.txt');
    const log: string[] = [];
    const authorizer: Authorizer = () => {
      log.push(`auth sees file: ${existsSync(target)}`);
      return Promise.resolve({ decision: 'approved', scope: 'once' });
    };
    const r = recording({ decision: 'approved', scope: 'once' });
    const deps = { ...makeDeps(ws.path, { authorizer }), guard: r.guard };
    const res = await callTool(call('create_file', { path: target, content: 'hi' }), deps, signal);
    expect(res.status).toBe('ok');
    expect([...r.log, ...log]).toEqual(['guard', 'auth sees file: false']);
    expect(existsSync(target)).toBe(true);
  });

  it('a denied call never executes and says so as a result', async () => {
    const r = recording({ decision: 'denied', reason: 'no thanks' });
    const deps = { ...makeDeps(ws.path, { authorizer: r.authorizer }), guard: r.guard };
    const res = await callTool(call('delete_file', { path: join(outside.path, 'x') }), deps, signal);
    expect(JSON.parse(res.content)).toMatchObject({ error: { kind: 'denied' } });
    expect(r.log).toEqual(['guard', 'auth:delete_file']);
  });

  it('calls inside the workspace never ask', async () => {
    const r = recording({ decision: 'denied', reason: 'x' });
    const deps = { ...makeDeps(ws.path, { authorizer: r.authorizer }), guard: r.guard };
    const res = await callTool(call('create_file', { path: 'sub/in.txt', content: 'x' }), deps, signal);
    expect(res.status).toBe('ok');
    expect(r.log).toEqual(['guard']);
    expect(existsSync(join(ws.path, 'sub/in.txt'))).toBe(true);
  });

  it('an unknown tool is a result listing what exists', async () => {
    const res = await callTool(call('write_file', {}), makeDeps(ws.path), signal);
    expect(JSON.parse(res.content)).toMatchObject({ error: { kind: 'unknown_tool' } });
    expect(res.content).toMatch(/create_file/);
  });

  it('a FatalToolError becomes status fatal with the error as data; an ordinary throw is a result', async () => {
    const mk = (name: string, err: Error): ToolDeclaration =>
      defineTool({ name, description: 'x', schema: z.object({}), tags: readTags({ brief: () => '' }), execute: () => Promise.reject(err) }) as ToolDeclaration;
    const surface = new Surface('coding', [mk('boom', new FatalToolError('store gone', 'STORE_DEAD')), mk('oops', new Error('disk hiccup'))], false);
    const deps = makeDeps(ws.path, { surface });
    const fatal = await callTool(call('boom', {}), deps, signal);
    expect(fatal.status).toBe('fatal');
    expect(fatal.fatal).toMatchObject({ name: 'FatalToolError', code: 'STORE_DEAD' });
    const soft = await callTool(call('oops', {}), deps, signal);
    expect(soft.status).toBe('error');
    expect(soft.content).toMatch(/disk hiccup/);
  });

  it('a symlink escaping the workspace is caught even though the path looks inside', async () => {
    mkdirSync(join(outside.path, 'real'));
    symlinkSync(join(outside.path, 'real'), join(ws.path, 'link'));
    const r = recording({ decision: 'denied', reason: 'no' });
    const deps = { ...makeDeps(ws.path, { authorizer: r.authorizer }), guard: r.guard };
    const res = await callTool(call('create_file', { path: 'link/evil.txt', content: 'x' }), deps, signal);
    expect(JSON.parse(res.content)).toMatchObject({ error: { kind: 'denied' } });
    expect(existsSync(join(outside.path, 'real/evil.txt'))).toBe(false);
  });
});
