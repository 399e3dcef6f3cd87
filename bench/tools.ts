// Suite `tools`: a read-only batch of 8 small read_file calls, parallel vs serial, against raw fs reads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCall } from '../src/runtime/protocol/index.js';
import { runBatch } from '../src/actors/tools/batch.js';
import { surfaceFor } from '../src/actors/tools/profiles.js';
import { WorkspaceGuard } from '../src/actors/tools/workspace-guard.js';
import { Grants } from '../src/actors/tools/grants.js';
import { headlessAuthorizer } from '../src/actors/tools/authorizer.js';
import type { AdapterDeps } from '../src/actors/tools/adapter.js';
import { figure, ms, repeat, type Suite } from './lib.js';
import { mcpFigures } from './mcp.js';

const FILES = 8;
const ITER = 50;

function deps(ws: string): AdapterDeps {
  return {
    surface: surfaceFor('repo'),
    guard: new WorkspaceGuard(ws),
    grants: new Grants(false),
    authorizer: headlessAuthorizer,
    env: {
      workspace: ws, agent: 'repo', taskId: 'bench', delegationId: null, boardId: 'bench',
      askUser: () => Promise.reject(new Error('no user')),
      store: { listNotes: () => Promise.resolve(''), readNote: () => Promise.resolve(''), readArtifact: () => Promise.resolve('') },
      delegate: () => Promise.resolve({ kind: 'error', error: { kind: 'none', message: 'no delegation in bench' } }),
    },
  };
}

/** Median ms per batch of 8 reads, each sample averaged over ITER batches. */
async function sample(fn: () => Promise<unknown>): Promise<number[]> {
  return repeat(7, async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ITER; i++) await fn();
    return ms(t0) / ITER;
  }, 2);
}

const suite: Suite = {
  name: 'tools',
  async run() {
    const ws = mkdtempSync(join(tmpdir(), 'yagent-bench-tools-'));
    try {
      const paths = Array.from({ length: FILES }, (_, i) => join(ws, `f${i}.ts`));
      for (const p of paths) writeFileSync(p, 'export const x = 1;\n'.repeat(40));
      const d = deps(ws);
      const calls: ToolCall[] = paths.map((p, i) => ({ id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: p }) }));
      const signal = new AbortController().signal;
      const rawSerial = await sample(async () => {
        for (const p of paths) await readFile(p);
      });
      const rawParallel = await sample(() => Promise.all(paths.map((p) => readFile(p))));
      const serial = await sample(() => runBatch(calls, d, { maxParallel: 1, signal }));
      const parallel = await sample(() => runBatch(calls, d, { maxParallel: 8, signal }));
      const med = (s: number[]): number => [...s].sort((a, b) => a - b)[Math.floor(s.length / 2)] ?? Number.NaN;
      return [
        figure('batch8_parallel_ms', 'ms', parallel, '<= serial batch of the same reads', (v) => v <= med(serial), { label: 'same 8 reads through runBatch, max_parallel_readonly_tools=1', value: med(serial) }),
        figure('batch8_serial_ms', 'ms', serial, '<= 10x raw sequential fs.readFile', (v, b) => b !== undefined && v <= 10 * b, { label: '8 sequential fs.promises.readFile', value: med(rawSerial) }),
        ...(await mcpFigures()),
        figure('batch8_parallel_vs_raw_ms', 'ms', parallel, '<= 10x raw Promise.all fs.readFile', (v, b) => b !== undefined && v <= 10 * b, { label: 'Promise.all of 8 fs.promises.readFile', value: med(rawParallel) }),
      ];
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  },
};

export default suite;
