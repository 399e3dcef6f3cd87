// `--queue redis://[user:password@]HOST:PORT[/DB][?queue=NAME]` (or rediss:// for TLS) → connection options.
import type { RedisOptions } from 'ioredis';
import { CliError, EXIT } from '../exit-codes.js';

export const DEFAULT_QUEUE_NAME = 'yagent-batch';

export interface QueueTarget {
  connection: RedisOptions;
  /** BullMQ queue name (`?queue=NAME`; default yagent-batch): several batches can share one Redis. */
  name: string;
  /** The URL with its password masked: what messages print. */
  display: string;
}

function bad(raw: string, why: string): CliError {
  return new CliError(`--queue: ${why}`, EXIT.error, maskUrl(raw), 'use redis://[:PASSWORD@]HOST:PORT[/DB] or rediss://… (TLS); REDIS_PASSWORD also sets the password');
}

/** The password of a URL replaced by ***, so no message or log line carries it. */
export function maskUrl(raw: string): string {
  return raw.replace(/^(\w+:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

/** Parses the queue URL; the password comes from the URL, else from REDIS_PASSWORD in `env`. */
export function parseQueueUrl(raw: string, env: NodeJS.ProcessEnv = process.env): QueueTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad(raw, 'not a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw bad(raw, `unsupported scheme "${url.protocol}"`);
  if (url.hostname === '') throw bad(raw, 'no host');
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw bad(raw, `database must be a number, got "${dbText}"`);
  const name = url.searchParams.get('queue') ?? DEFAULT_QUEUE_NAME;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw bad(raw, `queue name may hold letters, digits, _ . - only, got "${name}"`);
  const password = url.password !== '' ? decodeURIComponent(url.password) : env['REDIS_PASSWORD'];
  const connection: RedisOptions = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    db,
    ...(url.username !== '' ? { username: decodeURIComponent(url.username) } : {}),
    ...(password !== undefined && password !== '' ? { password } : {}),
    ...(url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
  };
  return { connection, name, display: maskUrl(raw) };
}
