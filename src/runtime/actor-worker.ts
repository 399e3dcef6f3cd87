// The generic actor worker: any actor module under dist/ (tests' fixtures, the mcp actor, a plain tsc build),
// imported on demand; the agent and store threads start from their bundles instead (thread-worker.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startWorker } from './worker-bootstrap.js';

// This file is dist/src/runtime/actor-worker.js, so dist/ is two levels up.
const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fileUrl = (spec: string): string => pathToFileURL(join(distRoot, spec)).href;

startWorker({
  // SpawnSpec.module is a path under dist/
  load: async (spec) => (await import(fileUrl(spec))) as { default?: unknown },
  // a preload is a module path under dist/ (`src/….js`) or a package name
  preload: (spec) => import(/^src\/.*\.js$/.test(spec) ? fileUrl(spec) : spec),
});
