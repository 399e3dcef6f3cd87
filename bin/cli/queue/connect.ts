// Redis connection options per use: workers and a following batch wait out an outage, one-shot commands give up.
import type { RedisOptions as QueueConnection } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { CliError, EXIT } from '../exit-codes.js';
import type { QueueTarget } from './url.js';

/** Reconnect delays: quick first tries, never more than 2 s apart (a restarted Redis is noticed within 2 s). */
const reconnectDelay = (times: number): number => Math.min(100 * times, 2000);

/** Long-lived clients (worker, following batch): commands wait for the connection to come back. */
export function longLived(target: QueueTarget): RedisOptions & QueueConnection {
  return { ...target.connection, maxRetriesPerRequest: null, retryStrategy: reconnectDelay };
}

/** One-shot commands (enqueue, status, results): about 5 s of reconnect tries, then the command fails. */
export function oneShot(target: QueueTarget): RedisOptions & QueueConnection {
  return { ...target.connection, maxRetriesPerRequest: 2, connectTimeout: 5000, retryStrategy: (times) => (times > 6 ? null : reconnectDelay(times)) };
}

/** A Redis failure as a three-line CliError naming the (masked) URL. */
export function unreachable(target: QueueTarget, err: unknown): CliError {
  const msg = err instanceof Error ? err.message : String(err);
  return new CliError(`cannot use the queue: ${msg}`, EXIT.error, target.display, 'check that redis-server runs there, the password (URL or REDIS_PASSWORD) and rediss:// for TLS');
}

/** Closes a one-shot client; a connection that already gave up has nothing to close (its error was reported). */
export async function closeQuietly(client: { close(): Promise<void> }): Promise<void> {
  try {
    await client.close();
  } catch {
    // the command's own failure is what the user sees; a failing close adds nothing
  }
}
