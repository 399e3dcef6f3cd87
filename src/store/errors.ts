// Store errors carry a stable `code` so callers branch on data after the RPC boundary, not on instanceof.
export type StoreErrorCode =
  | 'BAD_PATH'
  | 'BAD_INPUT'
  | 'EMPTY_BOARD'
  | 'BLACKBOARD_DISABLED'
  | 'CHECKPOINT_UNREADABLE'
  | 'NOT_FOUND'
  | 'SHUT_DOWN'
  | 'FLUSH_FAILED'
  | 'CORRUPT'
  | 'BUSY';

/** "No such file": the one read failure a store reader may report as "none"; any other is the caller's error. */
export function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}
