// Size limits of the file tools (seeds §5.4): one place for the numbers.
export const READ_HARD_LIMIT_BYTES = 10 * 1024 * 1024;
export const READ_SOFT_WARN_BYTES = 2 * 1024 * 1024;
export const READ_MAX_LINES = 1000;
export const EDIT_LIMIT_BYTES = 10 * 1024 * 1024;
export const LIST_MAX_ENTRIES = 1000;
export const SEARCH_MAX_RESULTS = 500;
/** Files up to this size are read synchronously: the libuv pool is shared by every actor of the process
 *  (the store's fsyncs included), and queueing behind it costs more than the read itself. */
export const SYNC_READ_MAX_BYTES = 256 * 1024;
