// Pins the authorization round trip on the runtime's real Dispatcher + HelpDesk (critical lane,
// paired by requestId), the headless fail-closed result, and -y bypassing every authorization.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/runtime/dispatcher.js';
import { HelpDesk } from '../../src/runtime/help-desk.js';
import type { ActorContext } from '../../src/runtime/actor.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { actorAuthorizer } from '../../src/actors/tools/authorizer.js';
import { callTool } from '../../src/actors/tools/adapter.js';
import { call, makeDeps, memoryProjectGrants, tempDir } from './helpers.js';

/** requestUserHelp wired exactly like the Runtime: the help desk publishes user_help_needed on the dispatcher. */
function helpWiring(hasResponder: boolean): { dispatcher: Dispatcher; help: HelpDesk; ctx: Pick<ActorContext, 'requestUserHelp'> } {
  const dispatcher = new Dispatcher();
  const help = new HelpDesk(hasResponder, (source, event) => dispatcher.publish(source, event));
  let n = 0;
  const ctx: Pick<ActorContext, 'requestUserHelp'> = {
    requestUserHelp: (request) => help.ask(`req-${++n}`, { name: 'delegation:c1:coding', taskId: 'task-1', delegationId: 'd1' }, request),
  };
  return { dispatcher, help, ctx };
}

/** A client answering every authorization request with `approved` at `scope`; records what it saw. */
function client(w: ReturnType<typeof helpWiring>, approved: boolean, scope: 'once' | 'session' | 'project'): Envelope[] {
  const seen: Envelope[] = [];
  w.dispatcher.consume({ name: 'tui', filter: { taskId: 'task-1', types: ['user_help_needed'] } }, (env) => {
    seen.push(env);
    if (env.payload.type === 'user_help_needed') w.help.answer({ requestId: env.payload.requestId, approved, scope });
  });
  return seen;
}

let ws: ReturnType<typeof tempDir>;
let out: ReturnType<typeof tempDir>;
const signal = new AbortController().signal;
beforeEach(() => {
  ws = tempDir();
  out = tempDir('yagent-out-');
});
afterEach(() => {
  ws.cleanup();
  out.cleanup();
});

describe('authorization round trip', () => {
  it('user_help_needed rides the critical lane and the paired response approves the call', async () => {
    const w = helpWiring(true);
    const seen = client(w, true, 'once');
    const target = join(out.path, 'approved.txt');
    const res = await callTool(call('create_file', { path: target, content: 'x' }), makeDeps(ws.path, { authorizer: actorAuthorizer(w.ctx) }), signal);
    expect(res.status).toBe('ok');
    expect(existsSync(target)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.lane).toBe('critical');
    expect(seen[0]?.payload).toMatchObject({ type: 'user_help_needed', kind: 'authorization', tool: 'create_file', agent: 'coding' });
  });

  it('a session grant is asked once; a project grant reaches ProjectGrants', async () => {
    const w = helpWiring(true);
    const seen = client(w, true, 'project');
    const project = memoryProjectGrants();
    const deps = makeDeps(ws.path, { authorizer: actorAuthorizer(w.ctx), project });
    await callTool(call('create_file', { path: join(out.path, 'a.txt'), content: '' }), deps, signal);
    await callTool(call('create_file', { path: join(out.path, 'a.txt'), content: 'again', overwrite: true }), deps, signal);
    expect(seen).toHaveLength(1);
    expect(project.keys).toEqual([`create_file:${join(out.path, 'a.txt')}`]);
  });

  it('a denial from the user is a result and the file is not written', async () => {
    const w = helpWiring(true);
    client(w, false, 'once');
    const target = join(out.path, 'denied.txt');
    const res = await callTool(call('create_file', { path: target, content: 'x' }), makeDeps(ws.path, { authorizer: actorAuthorizer(w.ctx) }), signal);
    expect(JSON.parse(res.content)).toMatchObject({ error: { kind: 'denied' } });
    expect(existsSync(target)).toBe(false);
  });

  it('headless with nobody to ask fails closed with a clear result', async () => {
    const w = helpWiring(false);
    const target = join(out.path, 'headless.txt');
    const res = await callTool(call('create_file', { path: target, content: 'x' }), makeDeps(ws.path, { authorizer: actorAuthorizer(w.ctx) }), signal);
    const body = JSON.parse(res.content) as { error: { kind: string; message: string } };
    expect(body.error.kind).toBe('authorization_unavailable');
    expect(body.error.message).toMatch(/headless.*-y/s);
    expect(existsSync(target)).toBe(false);
  });

  it('-y bypasses every authorization: nothing is asked, even headless', async () => {
    const w = helpWiring(false);
    const target = join(out.path, 'yolo.txt');
    const res = await callTool(call('create_file', { path: target, content: 'x' }), makeDeps(ws.path, { authorizer: actorAuthorizer(w.ctx), yolo: true }), signal);
    expect(res.status).toBe('ok');
    expect(existsSync(target)).toBe(true);
    expect(w.help.waiting()).toEqual([]);
  });
});
