// Worker entry of a thread bundle (spare-boot's choice for a preload a bundle serves): runs the bundle through the
// code cache; the bundle's own bootstrap (worker-bootstrap.ts) reads workerData and says `ready`.
import { workerData } from 'node:worker_threads';
import { loadBundle } from './code-cache.js';
import { lowerThisThread } from './thread-priority.js';

const data = (workerData ?? {}) as { bundle?: unknown; packages?: unknown; nice?: unknown };
// before the bundle compiles: a UI's workers boot below its main thread too (thread-priority.ts)
if (typeof data.nice === 'number') lowerThisThread(data.nice);
if (typeof data.bundle !== 'string') throw new Error('thread-worker: workerData.bundle (a .cjs bundle path) is required');
loadBundle(data.bundle, (data.packages ?? {}) as Record<string, string>);
