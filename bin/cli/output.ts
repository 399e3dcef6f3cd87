// Output sinks for headless runs: text (answer on stdout), json (one final object), stream-json (v1 lines).
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { TaskOutcome } from '../host/types.js';
import type { OutputFormat } from './args.js';
import { describeEnvelope, DIM_EVENT_TYPES } from './progress.js';
import { usageLines } from './usage-report.js';
import { clientLine, DelegationTree, envelopeLine, resultObject } from './stream-json.js';

export interface Streams {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** stderr is a terminal that takes colour (retry lines are dim there). */
  color?: boolean;
}

export interface OutputSink {
  start(taskId: string, meta: Record<string, unknown>): void;
  event(env: Envelope): void;
  finish(outcome: TaskOutcome, exitCode: number, needsApproval: string[]): void;
}

/** `now`: the clock duration_ms is measured on (the sink is made when the run starts). */
export function createSink(format: OutputFormat, io: Streams, now: () => number = Date.now): OutputSink {
  const tree = new DelegationTree();
  const startedAt = now();
  const progress = (env: Envelope): void => {
    const line = describeEnvelope(env);
    if (line === null) return;
    const shown = io.color === true && DIM_EVENT_TYPES.has(env.payload.type) ? `\x1b[2m${line}\x1b[22m` : line;
    io.stderr(`${env.delegationId === null ? '' : '  '}${shown}\n`);
  };
  const footer = (o: TaskOutcome, needsApproval: string[]): void => {
    if (o.error) io.stderr(`error: ${o.error.message}\n`);
    for (const q of needsApproval) io.stderr(`needs approval (nobody could ask): ${q}\n`);
    if (needsApproval.length > 0) {
      io.stderr('yagent: a headless run cannot ask, so these calls were not run (exit 3): re-run with -y to allow them, or start `yagent serve` and re-run with --attach to approve each one (`yagent attach approve REQUEST`)\n');
    }
    io.stderr(`stop reason: ${o.stopReason}\n`);
    for (const l of usageLines(o)) io.stderr(`${l}\n`);
    if (o.rolloutPath) io.stderr(`rollout: ${o.rolloutPath}\n`);
    if (o.notesError !== undefined) io.stderr(`notes: unknown (${o.notesError})\n`);
    else if (o.notes.length > 0) io.stderr(`notes: ${o.notes.join(', ')}\n`);
  };
  switch (format) {
    case 'text':
      return {
        start: () => undefined,
        event: progress,
        finish: (o, _code, needsApproval) => {
          footer(o, needsApproval);
          if (o.text !== '') io.stdout(o.text.endsWith('\n') ? o.text : `${o.text}\n`);
        },
      };
    case 'json':
      return {
        start: () => undefined,
        event: progress,
        finish: (o, code, needsApproval) => {
          footer(o, needsApproval);
          io.stdout(`${JSON.stringify(resultObject(o, code, needsApproval, now() - startedAt))}\n`);
        },
      };
    case 'stream-json':
      return {
        start: (taskId, meta) => io.stdout(`${JSON.stringify(clientLine(taskId, 'run_start', meta))}\n`),
        event: (env) => io.stdout(`${JSON.stringify(envelopeLine(env, tree))}\n`),
        finish: (o, code, needsApproval) => {
          const { v: _v, type: _t, task_id: _id, ...data } = resultObject(o, code, needsApproval, now() - startedAt);
          io.stdout(`${JSON.stringify(clientLine(o.taskId, 'result', data))}\n`);
        },
      };
  }
}
