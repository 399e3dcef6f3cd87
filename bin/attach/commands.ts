// `yagent attach <cmd>`: one-shot commands against a running supervisor (ps, logs, approve, ...).
import { parseArgs } from 'node:util';
import type { UndoListItem, UndoRestoreResult } from '../../src/store/api.js';
import { describeRestore, undoTable } from '../cli/undo-format.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { CliError, EXIT, type ExitCode } from '../cli/exit-codes.js';
import { describeEnvelope } from '../cli/progress.js';
import type { TreeNode } from '../host/types.js';
import type { PendingApproval } from '../server/event-log.js';
import { ControlClient, settledStatus } from './client.js';
import { checkProviderFlag } from '../host/providers.js';
import { timelineLine } from '../cli/timeline-text.js';

export const ATTACH_USAGE = `usage: yagent attach <command> [--json]
  ps                         the supervision tree
  tasks                      tasks of this supervisor and their state
  logs [-f] TASK [--since N] the task's events (replayed from seq N; -f follows until the task ends)
  pause | continue TASK [AGENT|DELEGATION]   the whole task, or one actor (agent name or delegation call id)
  cancel TASK
  approvals [TASK]           pending approvals and questions (from any agent, nested ones included)
  approve REQUEST [--answer TEXT] [--scope once|session|project]
  deny REQUEST
  timeline TASK [--offset N] [--limit N]   status changes, delegations, notes, mentions and the Director's reviews, newest first
  undo TASK [ID] [--dry-run] the undo points of the task's workspace; ID restores the files of one
  send TASK "MESSAGE" [--provider NAME] [--model ID]
                             a running task's Director reads it at its next step (the next turn if
                             the turn ends first); an idle task: the next turn of its session;
                             --provider / --model: a turn of its own on that provider / model
  memory TASK [--type ROLE]  the task's saved conversation (ROLE: system|user|assistant|tool)
  drain [--timeout MS] [--exit]`;

export interface Out {
  out: (s: string) => void;
  err: (s: string) => void;
}

function renderTree(node: TreeNode, depth = 0, lines: string[] = []): string[] {
  const extra = [node.worktree !== undefined ? `worktree=${node.worktree}` : '', node.restarts > 0 ? `restarts=${node.restarts}` : '', node.drops > 0 ? `drops=${node.drops}` : '', node.mailboxDepth > 0 ? `mailbox=${node.mailboxDepth}` : '']
    .filter(Boolean)
    .join(' ');
  lines.push(`${'  '.repeat(depth)}${node.name}  [${node.kind}] ${node.paused === true ? 'paused' : node.state} ${Math.round(node.ageMs / 1000)}s${extra ? ` ${extra}` : ''}`);
  for (const c of node.children) renderTree(c, depth + 1, lines);
  return lines;
}

export function envelopeText(env: Envelope): string | null {
  const line = describeEnvelope(env);
  if (line !== null) return `#${env.seq} ${env.delegationId ?? 'director'}: ${line}`;
  if (env.payload.type === 'conversation_result' && env.delegationId === null) return `#${env.seq} result: ${env.payload.text}`;
  return null;
}

/** A pending request: its id, the agent asking (and which delegation), what it asks, the tool and what it touches. */
function approvalLine(a: PendingApproval): string {
  const q = a.request;
  const who = `${q.agent}${a.delegationId ? ` (delegation ${a.delegationId})` : ''}`;
  const what = q.kind === 'question' ? 'asks' : `needs approval${q.tool ? ` for ${q.tool}` : ''}`;
  return `${q.requestId}  task ${a.taskId}  ${who} ${what}: ${q.question.replace(/\s+/g, ' ').trim()}`;
}

/** Waits for the task's event stream to end (it ends with the task), then its final state. */
async function ended(c: ControlClient, taskId: string): Promise<string> {
  await c.events({ taskId, since: 0, follow: true }, () => undefined);
  return (await settledStatus(c, taskId)).state;
}

function one(positionals: string[], what: string): string {
  const v = positionals[0];
  if (v === undefined) throw new CliError(`attach needs ${what}`, EXIT.error, undefined, 'run `yagent attach --help`');
  return v;
}

export async function runAttach(argv: string[], io: Out, client?: ControlClient): Promise<ExitCode> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h') {
    io.out(`${ATTACH_USAGE}\n`);
    return EXIT.ok;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        follow: { type: 'boolean', short: 'f', default: false },
        since: { type: 'string' },
        answer: { type: 'string' },
        scope: { type: 'string' },
        timeout: { type: 'string' },
        exit: { type: 'boolean', default: false },
        type: { type: 'string' },
        provider: { type: 'string' },
        model: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        offset: { type: 'string' },
        limit: { type: 'string' },
      },
    });
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.error, undefined, 'run `yagent attach --help`');
  }
  const { values, positionals } = parsed;
  const c = client ?? ControlClient.discover();
  const print = (data: unknown, text: () => string): void => io.out(values.json ? `${JSON.stringify(data)}\n` : `${text()}\n`);
  switch (cmd) {
    case 'ps': {
      const tree = await c.get<TreeNode>('/api/tree');
      print(tree, () => renderTree(tree).join('\n'));
      return EXIT.ok;
    }
    case 'tasks': {
      const r = await c.get<{ tasks: { taskId: string; state: string; prompt: string }[] }>('/api/task_status');
      print(r, () => r.tasks.map((t) => `${t.taskId}  ${t.state}  ${t.prompt.slice(0, 60)}`).join('\n') || '(no tasks)');
      return EXIT.ok;
    }
    case 'logs': {
      const taskId = one(positionals, 'a TASK id');
      const since = Number(values.since ?? '0');
      await c.events({ taskId, since: Number.isFinite(since) ? since : 0, follow: values.follow === true }, (env) => {
        if (values.json) io.out(`${JSON.stringify(env)}\n`);
        else {
          const line = envelopeText(env);
          if (line !== null) io.out(`${line}\n`);
        }
      });
      return EXIT.ok;
    }
    case 'pause':
    case 'continue':
    case 'cancel': {
      const taskId = one(positionals, 'a TASK id');
      const path = cmd === 'pause' ? 'pause_task' : cmd === 'continue' ? 'continue_task' : 'cancel_task';
      const actor = cmd === 'cancel' ? undefined : positionals[1];
      const r = await c.post<{ ok?: boolean; state?: string; actors?: string[] }>(`/api/${path}`, { task_id: taskId, ...(actor !== undefined ? { actor } : {}) });
      // a cancel stops the task at its next step: say so once it has (its event stream ends with the task)
      const final = cmd === 'cancel' && r.ok === true ? await ended(c, taskId) : null;
      print(final ? { ...r, state: final } : r, () => (actor !== undefined ? `${taskId}: ${cmd === 'pause' ? 'paused' : 'continued'} ${(r.actors ?? []).join(', ')}` : `${taskId}: ${final ?? r.state ?? 'ok'}`));
      return EXIT.ok;
    }
    case 'approvals': {
      const q = positionals[0] ? `?task=${encodeURIComponent(positionals[0])}` : '';
      const r = await c.get<{ approvals: PendingApproval[] }>(`/api/approvals${q}`);
      print(r, () =>
        r.approvals.map(approvalLine).join('\n') ||
        '(no pending requests)',
      );
      return EXIT.ok;
    }
    case 'approve':
    case 'deny': {
      const requestId = one(positionals, 'a REQUEST id');
      const r = await c.post<{ task_id: string }>(`/api/${cmd}`, { request_id: requestId, answer: values.answer, scope: values.scope ?? 'once' });
      print(r, () => `${requestId}: ${cmd === 'approve' ? 'approved' : 'denied'} (task ${r.task_id})`);
      return EXIT.ok;
    }
    case 'timeline': {
      const taskId = one(positionals, 'a TASK id');
      const offset = Math.max(0, Number(values.offset ?? '0') || 0);
      const limit = Math.max(1, Number(values.limit ?? '100') || 100);
      const r = await c.get<{ entries: unknown[]; total?: number; has_more?: boolean }>(`/api/timeline?task=${encodeURIComponent(taskId)}&offset=${offset}&limit=${limit}`);
      const older = r.has_more === true ? `\n… ${(r.total ?? 0) - offset - r.entries.length} older: yagent attach timeline ${taskId} --offset ${offset + r.entries.length}` : '';
      print(r, () => (r.entries.map(timelineLine).join('\n') || '(empty timeline)') + older);
      return EXIT.ok;
    }
    case 'undo': {
      const taskId = one(positionals, 'a TASK id');
      const id = positionals[1];
      if (id === undefined) {
        const r = await c.get<{ points: UndoListItem[] }>(`/api/undo?task=${encodeURIComponent(taskId)}`);
        print(r, () => undoTable(r.points).trimEnd());
        return EXIT.ok;
      }
      // a refusal (409: files changed since; 404: no such point) is an error naming the reason and the files
      const r = await c.post<UndoRestoreResult>('/api/undo', { task_id: taskId, id, dry_run: values['dry-run'] === true });
      print(r, () => describeRestore(r).trimEnd());
      return EXIT.ok;
    }
    case 'send': {
      const taskId = one(positionals, 'a TASK id');
      const message = positionals.slice(1).join(' ');
      if (message.trim() === '') throw new CliError('attach send needs a MESSAGE', EXIT.error, undefined, 'yagent attach send TASK "the follow-up"');
      // an unknown provider is refused here, as a configuration error (exit 2), before anything is sent
      if (values.provider !== undefined) checkProviderFlag((await c.get<{ providers: string[] }>('/api/providers')).providers, values.provider, undefined);
      const model = { ...(values.provider !== undefined ? { provider: values.provider } : {}), ...(values.model !== undefined ? { model: values.model } : {}) };
      const r = await c.post<{ task_id: string; delivered: string; position?: number }>('/api/send', { task_id: taskId, message, ...model });
      print(r, () => (r.delivered === 'next_step' ? `${taskId}: queued: the Director reads it at its next step (the next turn if this one ends first)${r.task_id !== taskId ? ` — its running turn is ${r.task_id}` : ''}` : `${taskId}: follow-up ${r.delivered === 'queued' ? `queued (#${r.position ?? 1})` : 'started'} as task ${r.task_id}`));
      return EXIT.ok;
    }
    case 'memory': {
      const taskId = one(positionals, 'a TASK id');
      const q = `?task=${encodeURIComponent(taskId)}`;
      const r = await c.get<{ memory?: { messages: { role: string; content: string }[] }; messages?: { role: string; content: string }[] }>(
        values.type !== undefined ? `/api/memory/${encodeURIComponent(values.type)}${q}` : `/api/memory${q}`,
      );
      const msgs = r.messages ?? r.memory?.messages ?? [];
      print(r, () => msgs.map((m) => `${m.role}: ${m.content.replace(/\s+/g, ' ').slice(0, 200)}`).join('\n') || '(empty)');
      return EXIT.ok;
    }
    case 'drain': {
      const timeout = Number(values.timeout ?? '30000');
      const r = await c.post<{ still_running: string[] }>('/api/drain', { timeout_ms: Number.isFinite(timeout) ? timeout : 30_000, exit: values.exit === true });
      print(r, () => (r.still_running.length === 0 ? 'drained: nothing running' : `still running: ${r.still_running.join(', ')}`));
      return r.still_running.length === 0 ? EXIT.ok : EXIT.error;
    }
    default:
      throw new CliError(`unknown attach command "${cmd}"`, EXIT.error, undefined, 'run `yagent attach --help`');
  }
}
