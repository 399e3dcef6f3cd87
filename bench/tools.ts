// Suite `tools`: a read-only batch of 8 small read_file calls through the adapter (serial and parallel)
// against a raw loop doing the same reads and producing the same line-numbered text.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
      store: { listNotes: () => Promise.resolve(''), readNote: () => Promise.resolve(''), readArtifact: () => Promise.resolve(''), writeArtifact: () => Promise.resolve('') },
      delegate: () => Promise.resolve({ kind: 'error', error: { kind: 'none', message: 'no delegation in bench' } }),
    },
  };
}

/** ms per batch of 8 reads, averaged over ITER batches; the contenders take turns sample by sample. */
async function alternating(fns: (() => Promise<unknown>)[]): Promise<number[][]> {
  const out: number[][] = fns.map(() => []);
  await repeat(7, async () => {
    for (const [k, fn] of fns.entries()) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < ITER; i++) await fn();
      out[k]?.push(ms(t0) / ITER);
    }
    return 0;
  }, 2);
  return out.map((s) => s.slice(-7));
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
      // read_file reads a small file synchronously (SYNC_READ_MAX_BYTES) and numbers its lines: so does the floor
      let sink = 0;
      const rawLoop = async (): Promise<void> => {
        for (const p of paths) {
          if (!statSync(p).isFile()) throw new Error('fixture is not a file');
          const lines = readFileSync(p).toString('utf8').split('\n');
          if (lines[lines.length - 1] === '') lines.pop();
          sink += lines.map((l, i) => `${i + 1}\t${l}`).join('\n').length;
        }
        await Promise.resolve();
      };
      const [rawSerial = [], serial = [], parallel = []] = await alternating([rawLoop, () => runBatch(calls, d, { maxParallel: 1, signal }), () => runBatch(calls, d, { maxParallel: 8, signal })]);
      if (sink === 0) throw new Error('raw reads returned nothing');
      const med = (s: number[]): number => [...s].sort((a, b) => a - b)[Math.floor(s.length / 2)] ?? Number.NaN;
      return [
        figure('batch8_parallel_ms', 'ms', parallel, '<= serial batch of the same reads', (v) => v <= med(serial), { label: 'same 8 reads through runBatch, max_parallel_readonly_tools=1', value: med(serial) }),
        figure('batch8_serial_ms', 'ms', serial, '<= 3x the raw loop (the per-step harness budget)', (v, b) => b !== undefined && v <= 3 * b, { label: '8 x (stat + readFileSync + number the lines), same text out', value: med(rawSerial) }),
        ...(await mcpFigures()),
      ];
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  },
};

export default suite;
