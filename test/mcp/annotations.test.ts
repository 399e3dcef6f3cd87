// Annotation safety on the production path: real server-filesystem → McpHub → the mcp facade → MCP tool
// declarations → the adapter's guard, grants and authorizer (as in an agent worker; only the answer is scripted).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Remote } from '../../src/runtime/actor.js';
import { createTaskGroup } from '../../src/runtime/index.js';
import { McpHub } from '../../src/actors/mcp/hub.js';
import { mcpFacade, type McpApi } from '../../src/actors/mcp/mcp-actor.js';
import { mcpToolDeclarations } from '../../src/actors/mcp/tools.js';
import { callTool } from '../../src/actors/tools/adapter.js';
import { planBatches } from '../../src/actors/tools/batch.js';
import type { Authorizer, AuthRequest } from '../../src/actors/tools/authorizer.js';
import { surfaceFor } from '../../src/actors/tools/profiles.js';
import { call, makeDeps, memoryProjectGrants, tempDir } from '../tools/helpers.js';
import { filesystemStdio } from './servers.js';

let ws: ReturnType<typeof tempDir>;
const hubs: McpHub[] = [];
beforeEach(() => {
  ws = tempDir('yagent-mcp-ann-');
});
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
  ws.cleanup();
});

/** The fs server's tools on Coding's surface, loaded (as after load_tool); `asked` records each approval question. */
async function fsDeps(opts: { allowWrite?: boolean; yolo?: boolean; grants?: string[]; answer?: 'approved' | 'denied' } = {}) {
  const hub = new McpHub([filesystemStdio(ws.path, 'fs', { allowWrite: opts.allowWrite ?? false })], { tasks: createTaskGroup() });
  hubs.push(hub);
  await hub.start();
  const external = mcpToolDeclarations(hub.catalogue('coding'), mcpFacade(hub) as unknown as Remote<McpApi>);
  const surface = surfaceFor('coding', { external });
  for (const d of external) surface.load(d.name);
  const asked: AuthRequest[] = [];
  const authorizer: Authorizer = (req) => {
    asked.push(req);
    return Promise.resolve(opts.answer === 'approved' ? { decision: 'approved', scope: 'once' } : { decision: 'denied', reason: 'the test said no' });
  };
  const project = memoryProjectGrants();
  project.keys.push(...(opts.grants ?? []));
  return { deps: makeDeps(ws.path, { surface, authorizer, project, yolo: opts.yolo ?? false }), asked };
}

const signal = new AbortController().signal;
const mkdir = (name: string) => call('mcp__fs__create_directory', { path: join(ws.path, name) });
const write = (name: string) => call('mcp__fs__write_file', { path: join(ws.path, name), content: 'x' });

describe('MCP annotation safety', () => {
  it('a tool without readOnlyHint is a write: alone in its batch; read-only tools of the server batch together', async () => {
    const { deps } = await fsDeps();
    const read = (p: string) => call('mcp__fs__read_text_file', { path: join(ws.path, p) });
    expect(planBatches([read('a'), read('b'), write('c'), write('d'), mkdir('e'), read('f')], deps)).toEqual([[0, 1], [2], [3], [4], [5]]);
    expect(deps.surface.get('mcp__fs__write_file')?.tags).toMatchObject({ mutates: true, serial: true, needsAuth: true });
  });

  it('a non-destructive write asks; a project grant of it is enough; allow_write runs it without asking', async () => {
    const denied = await fsDeps();
    expect((await callTool(mkdir('no'), denied.deps, signal)).status).toBe('error');
    expect(denied.asked.map((a) => a.tool)).toEqual(['mcp__fs__create_directory']);
    expect(existsSync(join(ws.path, 'no'))).toBe(false);
    const granted = await fsDeps({ grants: ['mcp__fs__create_directory:write'] });
    expect((await callTool(mkdir('granted'), granted.deps, signal)).status).toBe('ok');
    expect(granted.asked).toEqual([]);
    const allowed = await fsDeps({ allowWrite: true });
    expect((await callTool(mkdir('allowed'), allowed.deps, signal)).status).toBe('ok');
    expect(allowed.asked).toEqual([]);
    expect(existsSync(join(ws.path, 'granted')) && existsSync(join(ws.path, 'allowed'))).toBe(true);
  });

  it('a destructive tool asks even with a project grant, unless -y; with allow_write the project grant covers it', async () => {
    mkdirSync(join(ws.path, 'sub'));
    const grant = ['mcp__fs__write_file:destructive'];
    const strict = await fsDeps({ grants: grant });
    const r = await callTool(write('sub/a.txt'), strict.deps, signal);
    expect(r.status).toBe('error');
    expect(r.content).toMatch(/did not allow/);
    expect(strict.asked[0]?.question).toMatch(/marked destructive by MCP server "fs"/);
    expect(existsSync(join(ws.path, 'sub/a.txt'))).toBe(false);
    const yolo = await fsDeps({ yolo: true });
    expect((await callTool(write('sub/y.txt'), yolo.deps, signal)).status).toBe('ok');
    expect(yolo.asked).toEqual([]);
    const relaxed = await fsDeps({ allowWrite: true, grants: grant });
    expect((await callTool(write('sub/b.txt'), relaxed.deps, signal)).status).toBe('ok');
    expect(relaxed.asked).toEqual([]);
    const ungranted = await fsDeps({ allowWrite: true, answer: 'approved' });
    expect((await callTool(write('sub/c.txt'), ungranted.deps, signal)).status).toBe('ok');
    expect(ungranted.asked.map((a) => a.tool)).toEqual(['mcp__fs__write_file']);
  });
});
