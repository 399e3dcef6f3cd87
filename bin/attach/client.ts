// The control-API client: finds a supervisor through its discovery file and calls it with the token.
import { createParser } from 'eventsource-parser';
import { EnvelopeSchema, type Envelope } from '../../src/runtime/protocol/index.js';
import { CliError, EXIT } from '../cli/exit-codes.js';
import { findSupervisors, type Discovery } from '../server/discovery.js';
import type { TaskStatus } from '../host/types.js';

export class ControlClient {
  constructor(readonly server: Discovery) {}

  static discover(env: NodeJS.ProcessEnv = process.env): ControlClient {
    const [newest] = findSupervisors(env);
    if (!newest) {
      throw new CliError('no running supervisor found', EXIT.error, 'no live discovery file under ~/.yagent/run/ (YAGENT_HOME overrides the root)', 'start one with `yagent serve`');
    }
    return new ControlClient(newest);
  }

  private headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = { authorization: `Bearer ${this.server.token}` };
    if (json) h['content-type'] = 'application/json';
    return h;
  }

  async get<T = unknown>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  async post<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.server.address}${path}`, {
        method,
        headers: this.headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new CliError(`cannot reach the supervisor: ${(err as Error).message}`, EXIT.error, this.server.address, 'is `yagent serve` still running?');
    }
    const text = await res.text();
    const parsed: unknown = text === '' ? {} : JSON.parse(text);
    if (!res.ok) {
      const msg = (parsed as { error?: string }).error ?? res.statusText;
      throw new CliError(`${method} ${path}: ${res.status} ${msg}`, EXIT.error);
    }
    return parsed as T;
  }

  /** Streams envelopes (replay from `since`, then live unless follow=false) until the stream ends. */
  async events(opts: { taskId?: string | undefined; since?: number; follow: boolean; signal?: AbortSignal }, onEnvelope: (env: Envelope) => void): Promise<void> {
    const q = new URLSearchParams();
    if (opts.taskId !== undefined) q.set('task', opts.taskId);
    q.set('since', String(opts.since ?? 0));
    if (!opts.follow) q.set('follow', '0');
    const res = await fetch(`${this.server.address}/api/events?${q.toString()}`, { headers: this.headers(false), signal: opts.signal });
    if (!res.ok || !res.body) {
      const text = await res.text();
      const msg = text.startsWith('{') ? ((JSON.parse(text) as { error?: string }).error ?? res.statusText) : res.statusText;
      throw new CliError(`GET /api/events: ${res.status} ${msg}`, EXIT.error, this.server.address, 'list the tasks with `yagent attach tasks`');
    }
    let ended = false;
    const parser = createParser({
      onEvent: (ev) => {
        if (ev.event === 'end') ended = true;
        else if (ev.event === 'envelope') onEnvelope(EnvelopeSchema.parse(JSON.parse(ev.data)));
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
        if (ended) break;
      }
    } catch (err) {
      if (!opts.signal?.aborted) throw err;
    }
  }
}

/** A task's status once its outcome is in: the event stream's task_end comes before the supervisor records the outcome
 *  (and its timeline's final status), so a client that saw the end asks until the outcome is there (bounded). */
export async function settledStatus(client: ControlClient, taskId: string): Promise<TaskStatus> {
  for (let i = 0; i < 200; i++) {
    const st = await client.get<TaskStatus>(`/api/task_status?task=${encodeURIComponent(taskId)}`);
    if (st.outcome !== null) return st;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} ended but its outcome never appeared`);
}
