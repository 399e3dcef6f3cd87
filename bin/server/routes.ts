// The control API: the seeds' task endpoints plus tree, timeline, approvals, drain and the event stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { exitCodeFor } from '../cli/outcome.js';
import { resultObject } from '../cli/stream-json.js';
import type { Host } from '../host/types.js';
import { unknownProvider } from '../host/providers.js';
import type { EventLog } from './event-log.js';
import { HttpError, readJson, sendJson } from './http-util.js';
import { streamEvents } from './sse-stream.js';
import { liveRoute } from './routes-live.js';

const TaskRef = z.object({ task_id: z.string().min(1) });
const UndoRef = z.object({ task_id: z.string().min(1), id: z.string().min(1), dry_run: z.boolean().optional() });
const PauseRef = TaskRef.extend({ actor: z.string().min(1).optional() });
const StartTask = z.object({
  prompt: z.string().min(1),
  workspace: z.string().min(1),
  task_id: z.string().min(1).optional(),
  /** The session this turn continues (`--resume` / `--continue` / `--fork` of `yagent -p --attach`). */
  /** TUI `/model`: a configured provider every agent of the turn uses (TaskOptions.provider). */
  provider: z.string().min(1).optional(),
  /** `--model`: that provider's model (without provider: the default provider's) for this turn. */
  model: z.string().min(1).optional(),
  session: z.object({ resume: z.string().min(1).optional(), continue_latest: z.boolean().optional(), fork: z.boolean().optional() }).optional(),
  options: z
    .object({
      yolo: z.boolean().default(false),
      full_yolo: z.boolean().default(false),
      disable_agents: z.array(z.string()).default([]),
    })
    .prefault({}),
});
const Decision = z.object({
  request_id: z.string().min(1),
  answer: z.string().optional(),
  scope: z.enum(['once', 'session', 'project']).default('once'),
});
const Send = z.object({ task_id: z.string().min(1), message: z.string().min(1), provider: z.string().min(1).optional(), model: z.string().min(1).optional() });
const Drain = z.object({ timeout_ms: z.number().int().nonnegative().default(30_000) });

export interface RouteContext {
  host: Host;
  log: EventLog;
  version: string;
  /** Asks the serve loop to exit after a drain (POST /api/drain with exit=true). */
  requestExit: () => void;
}

/** A path segment as the client meant it; a malformed escape (`%E0%A4%A`) is the client's error, not a 500. */
function decodedSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, `the path segment "${raw.slice(0, 100)}" is not valid percent-encoding`);
  }
}

function need(url: URL, name: string): string {
  const v = url.searchParams.get(name);
  if (v === null || v === '') throw new HttpError(400, `query parameter "${name}" is required`);
  return v;
}

/** An unknown provider is the client's error (400), named with the closest configured one. */
function checkProvider(ctx: RouteContext, name: string | undefined): void {
  const why = name === undefined ? null : unknownProvider(ctx.host.providers(), name);
  if (why !== null) throw new HttpError(400, why);
}

function modelOf(body: { provider?: string | undefined; model?: string | undefined }): { provider?: string; model?: string } {
  return { ...(body.provider !== undefined ? { provider: body.provider } : {}), ...(body.model !== undefined ? { model: body.model } : {}) };
}

function taskOr404(ctx: RouteContext, taskId: string) {
  const st = ctx.host.status(taskId);
  if (!st) throw new HttpError(404, `no task "${taskId}" in this supervisor`);
  return st;
}

export async function route(ctx: RouteContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const key = `${req.method ?? 'GET'} ${url.pathname}`;
  if (req.method === 'GET' && url.pathname.startsWith('/api/memory/')) return memoryOfType(ctx, res, url, decodedSegment(url.pathname.slice('/api/memory/'.length)));
  switch (key) {
    case 'GET /api/version':
      return sendJson(res, 200, { version: ctx.version, pid: process.pid });
    case 'POST /api/start_task': {
      const body = await readJson(req, StartTask);
      if (body.task_id !== undefined && ctx.host.status(body.task_id)) throw new HttpError(409, `task "${body.task_id}" already exists`);
      checkProvider(ctx, body.provider);
      const { taskId, done } = ctx.host.startTask({
        prompt: body.prompt,
        workspace: body.workspace,
        taskId: body.task_id,
        ...(body.session ? { session: { ...(body.session.resume !== undefined ? { resume: body.session.resume } : {}), ...(body.session.continue_latest === true ? { continueLatest: true } : {}), ...(body.session.fork === true ? { fork: true } : {}) } } : {}),
        options: { yolo: body.options.yolo || body.options.full_yolo, fullYolo: body.options.full_yolo, disabledAgents: body.options.disable_agents, ...modelOf(body) },
      });
      done.catch(() => undefined); // the outcome is read through task_status; the host reports failures as data
      return sendJson(res, 202, { task_id: taskId });
    }
    case 'POST /api/load_task': {
      const body = await readJson(req, TaskRef);
      const st = ctx.host.status(body.task_id);
      if (st) return sendJson(res, 200, { task_id: st.taskId, state: st.state, loaded: 'live', session_id: st.outcome?.sessionId ?? null, memory: await ctx.host.memory(st.taskId) });
      const memory = await ctx.host.memory(body.task_id);
      if (memory === null) throw new HttpError(404, `no task "${body.task_id}" in this supervisor or the store`);
      return sendJson(res, 200, { task_id: body.task_id, state: 'stored', loaded: 'store', memory });
    }
    case 'POST /api/pause_task':
    case 'POST /api/continue_task': {
      const body = await readJson(req, PauseRef);
      if (body.actor === undefined) return taskControl(ctx, res, key, body.task_id);
      taskOr404(ctx, body.task_id);
      const actors = ctx.host.pauseActor(body.task_id, body.actor, key === 'POST /api/pause_task');
      return sendJson(res, actors.length > 0 ? 200 : 404, { task_id: body.task_id, actor: body.actor, ok: actors.length > 0, actors, state: ctx.host.status(body.task_id)?.state });
    }
    case 'POST /api/cancel_task':
      return taskControl(ctx, res, key, (await readJson(req, TaskRef)).task_id);
    case 'GET /api/task_status': {
      const id = url.searchParams.get('task') ?? url.searchParams.get('task_id');
      if (id === null) return sendJson(res, 200, { tasks: ctx.host.tasks() });
      const st = taskOr404(ctx, id);
      // `result`: the same v2 result object as `-p --output-format json` and batch lines (`outcome` stays for older clients)
      const result = st.outcome === null ? null : resultObject(st.outcome, exitCodeFor(st.outcome, [], false), [], (st.endedAt ?? Date.now()) - st.startedAt);
      return sendJson(res, 200, { ...st, result });
    }
    case 'GET /api/history':
      return sendJson(res, 200, { tasks: ctx.host.tasks().map(({ outcome: _o, ...rest }) => rest) });
    case 'GET /api/memory': {
      const id = need(url, 'task');
      const memory = await ctx.host.memory(id);
      if (memory === null) throw new HttpError(404, `no memory for task "${id}"`);
      return sendJson(res, 200, { task_id: id, memory });
    }
    case 'DELETE /api/memory': {
      const id = need(url, 'task');
      return sendJson(res, 200, { task_id: id, deleted: await ctx.host.deleteMemory(id) });
    }
    case 'POST /api/send': {
      const body = await readJson(req, Send);
      checkProvider(ctx, body.provider);
      const r = await ctx.host.send(body.task_id, body.message, modelOf(body));
      if (r === null) throw new HttpError(404, `no task "${body.task_id}" in this supervisor`);
      return sendJson(res, 202, { task_id: r.taskId, follows: body.task_id, delivered: r.delivered, ...(r.delivered === 'queued' ? { position: r.position } : {}) });
    }
    case 'GET /api/tree':
      return sendJson(res, 200, ctx.host.tree());
    case 'GET /api/providers':
      return sendJson(res, 200, { providers: ctx.host.providers() });
    case 'GET /api/undo': {
      const st = taskOr404(ctx, need(url, 'task'));
      return sendJson(res, 200, { task_id: st.taskId, workspace: st.workspace, points: await ctx.host.undoList(st.workspace) });
    }
    case 'POST /api/undo': {
      const body = await readJson(req, UndoRef);
      const st = taskOr404(ctx, body.task_id);
      const r = await ctx.host.undoRestore(st.workspace, body.id, body.dry_run === true);
      return sendJson(res, r.ok ? 200 : r.reason === 'not_found' ? 404 : 409, { task_id: st.taskId, ...r, ...(r.ok ? {} : { error: r.message }) });
    }
    case 'GET /api/timeline': {
      const id = need(url, 'task');
      const limit = Number(url.searchParams.get('limit') ?? '100');
      const offset = Number(url.searchParams.get('offset') ?? '0');
      const page = await ctx.host.timelinePage(id, Number.isFinite(limit) && limit > 0 ? limit : 100, Number.isFinite(offset) && offset > 0 ? offset : 0);
      return sendJson(res, 200, { task_id: id, entries: page.entries, offset: Number.isFinite(offset) && offset > 0 ? offset : 0, total: page.total, has_more: page.hasMore });
    }
    case 'GET /api/approvals':
      return sendJson(res, 200, { approvals: ctx.log.approvals(url.searchParams.get('task') ?? undefined) });
    case 'POST /api/approve':
    case 'POST /api/deny': {
      const body = await readJson(req, Decision);
      const pending = ctx.log.approval(body.request_id);
      if (!pending) throw new HttpError(404, `no pending request "${body.request_id}"`);
      const approved = key === 'POST /api/approve';
      const ok = ctx.host.respond(pending.taskId, { requestId: body.request_id, approved, answer: body.answer, scope: body.scope });
      return sendJson(res, ok ? 200 : 409, { request_id: body.request_id, task_id: pending.taskId, approved, ok });
    }
    case 'POST /api/drain': {
      const body = await readJson(req, Drain.extend({ exit: z.boolean().default(false) }));
      const running = await ctx.host.drain(body.timeout_ms);
      if (body.exit) ctx.requestExit();
      return sendJson(res, 200, { still_running: running });
    }
    case 'GET /api/events': {
      const since = Number(url.searchParams.get('since') ?? '0');
      const taskId = url.searchParams.get('task') ?? undefined;
      // an unknown task would follow forever: nothing will ever end its stream
      if (taskId !== undefined) taskOr404(ctx, taskId);
      streamEvents(res, ctx.log, {
        taskId,
        since: Number.isFinite(since) ? since : 0,
        follow: url.searchParams.get('follow') !== '0',
      });
      return;
    }
    default:
      if (await liveRoute(ctx.host, key, req, res)) return;
      throw new HttpError(404, `no route ${key}`);
  }
}

const MEMORY_TYPES = ['system', 'user', 'assistant', 'tool'] as const;

/** `GET /api/memory/:type?task=ID`: the task's saved conversation, only the messages of one role. */
async function memoryOfType(ctx: RouteContext, res: ServerResponse, url: URL, type: string): Promise<void> {
  if (!(MEMORY_TYPES as readonly string[]).includes(type)) throw new HttpError(400, `memory type must be one of ${MEMORY_TYPES.join(', ')}, got "${type}"`);
  const id = need(url, 'task');
  const memory = (await ctx.host.memory(id)) as { messages?: { role: string }[] } | null;
  if (memory === null) throw new HttpError(404, `no memory for task "${id}"`);
  return sendJson(res, 200, { task_id: id, type, messages: (memory.messages ?? []).filter((m) => m.role === type) });
}

/** Cancel, pause or continue a whole task. */
function taskControl(ctx: RouteContext, res: ServerResponse, key: string, taskId: string): void {
  taskOr404(ctx, taskId);
  const ok = key === 'POST /api/cancel_task' ? ctx.host.cancel(taskId) : key === 'POST /api/pause_task' ? ctx.host.pause(taskId) : ctx.host.resume(taskId);
  return sendJson(res, ok ? 200 : 409, { task_id: taskId, ok, state: ctx.host.status(taskId)?.state });
}
