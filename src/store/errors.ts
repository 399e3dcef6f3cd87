// Store errors carry a stable `code` so callers branch on data after the RPC boundary, not on instanceof.
export type StoreErrorCode =
  | 'BAD_PATH'
  | 'BAD_INPUT'
  | 'EMPTY_BOARD'
  | 'BLACKBOARD_DISABLED'
  | 'CHECKPOINT_UNREADABLE'
  | 'NOT_FOUND'
  | 'SHUT_DOWN'
  | 'FLUSH_FAILED';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}
