// Command lines of the queue: `batch FILE --queue URL`, `batch status|results --queue URL`, `worker --queue URL`.
import { common, parse, positiveInt, usageError, type CommonFlags } from '../args.js';
import { parseQueueUrl, type QueueTarget } from './url.js';

export type QueueCommand =
  | { kind: 'queue-batch'; flags: CommonFlags; file: string; target: QueueTarget; detach: boolean; attempts: number; backoffMs: number; out: string | undefined }
  | { kind: 'queue-status'; flags: CommonFlags; target: QueueTarget; json: boolean }
  | { kind: 'queue-results'; flags: CommonFlags; target: QueueTarget; out: string | undefined }
  | {
      kind: 'worker';
      flags: CommonFlags;
      target: QueueTarget;
      concurrency: number;
      name: string | undefined;
      lockMs: number | undefined;
      stalledMs: number | undefined;
    };

/** `batch … --queue URL` goes to the queue's parser; a local batch never sees these flags. */
export function wantsQueue(rest: string[]): boolean {
  return rest.some((a) => a === '--queue' || a.startsWith('--queue='));
}

export function parseQueueBatch(rest: string[]): QueueCommand | { kind: 'help'; topic: 'batch' } {
  const { values, positionals } = parse(rest, {
    queue: { type: 'string' },
    detach: { type: 'boolean', default: false },
    attempts: { type: 'string' },
    'backoff-ms': { type: 'string' },
    out: { type: 'string', short: 'o' },
    json: { type: 'boolean', default: false },
  });
  if (values.help) return { kind: 'help', topic: 'batch' };
  if (values.queue === undefined) throw usageError('--queue needs a redis:// URL');
  const target = parseQueueUrl(values.queue);
  const flags = common(values);
  const first = positionals[0];
  if (first === 'status') return { kind: 'queue-status', flags, target, json: values.json === true };
  if (first === 'results') return { kind: 'queue-results', flags, target, out: values.out };
  if (first === undefined) throw usageError('batch --queue needs a TASKS.jsonl file (or `status` / `results`)');
  const attempts = positiveInt(values.attempts, '--attempts', 3);
  if (attempts < 1) throw usageError('--attempts must be at least 1');
  return { kind: 'queue-batch', flags, file: first, target, detach: values.detach === true, attempts, backoffMs: positiveInt(values['backoff-ms'], '--backoff-ms', 2000), out: values.out };
}

export function parseWorker(rest: string[]): QueueCommand | { kind: 'help'; topic: 'worker' } {
  const { values } = parse(rest, {
    queue: { type: 'string' },
    concurrency: { type: 'string', short: 'j' },
    name: { type: 'string' },
    'lock-ms': { type: 'string' },
    'stalled-ms': { type: 'string' },
  });
  if (values.help) return { kind: 'help', topic: 'worker' };
  if (values.queue === undefined) throw usageError('worker needs --queue redis://HOST:PORT[/DB]');
  const concurrency = positiveInt(values.concurrency, '--concurrency', 1);
  if (concurrency < 1) throw usageError('--concurrency must be at least 1');
  const ms = (raw: string | undefined, name: string): number | undefined => {
    if (raw === undefined) return undefined;
    const n = positiveInt(raw, name, 0);
    if (n < 100) throw usageError(`${name} must be at least 100`);
    return n;
  };
  return {
    kind: 'worker',
    flags: common(values),
    target: parseQueueUrl(values.queue),
    concurrency,
    name: values.name,
    lockMs: ms(values['lock-ms'], '--lock-ms'),
    stalledMs: ms(values['stalled-ms'], '--stalled-ms'),
  };
}
