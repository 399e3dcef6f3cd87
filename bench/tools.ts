// Suite `tools`: a read-only batch of 8 small read_file calls through the adapter (serial and parallel)
// against a raw loop doing the same reads and producing the same line-numbered text (checked before timing).
// run_bash's sandbox, word check and parser load: bench/tools-shell.ts. The MCP figures are their own suite (`mcp`).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCall } from '../src/runtime/protocol/index.js';
import { runBatch } from '../src/actors/tools/batch.js';
import { surfaceFor } from '../src/actors/tools/profiles.js';
import { WorkspaceGuard } from '../src/actors/tools/workspace-guard.js';
import { Boundary, boundaryPolicy } from '../src/actors/tools/boundary.js';
import { Grants } from '../src/actors/tools/grants.js';
import { headlessAuthorizer } from '../src/actors/tools/authorizer.js';
import type { AdapterDeps } from '../src/actors/tools/adapter.js';
import { ms, pairedFigure, type Suite } from './lib.js';
import { shellFigures } from './tools-shell.js';

const FILES = 8;
/** Batches per sample: a sample is long enough (~10–30 ms) that one scheduler hiccup does not decide it. */
const ITER = 100;
const ROUNDS = 15;

/** Wired like `buildToolRunner` (src/actors/agents/tool-wiring.ts): one Boundary for the guard and the walkers. */
function deps(ws: string): AdapterDeps {
  const boundary = new Boundary(ws, boundaryPolicy(process.env, []));
  return {
    surface: surfaceFor('repo'),
    guard: new WorkspaceGuard(ws, boundary),
    grants: new Grants(false),
    authorizer: headlessAuthorizer,
    env: {
      workspace: ws, agent: 'repo', taskId: 'bench', delegationId: null, boardId: 'bench', boundary,
      askUser: () => Promise.reject(new Error('no user')),
      store: { listNotes: () => Promise.resolve(''), readNote: () => Promise.resolve(''), readArtifact: () => Promise.resolve(''), writeArtifact: () => Promise.resolve(''), writeImageArtifact: () => Promise.resolve('') },
      delegate: () => Promise.resolve({ kind: 'error', error: { kind: 'none', message: 'no delegation in bench' } }),
    },
  };
}

/** ms per batch of 8 reads (ITER batches per sample); each round runs every contender once, the order rotating. */
async function rounds(fns: (() => Promise<unknown>)[]): Promise<number[][]> {
  const out: number[][] = fns.map(() => []);
  for (let r = -2; r < ROUNDS; r++) {
    for (let j = 0; j < fns.length; j++) {
      const k = (j + Math.max(r, 0)) % fns.length;
      const fn = fns[k] as () => Promise<unknown>;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < ITER; i++) await fn();
      if (r >= 0) out[k]?.push(ms(t0) / ITER);
    }
  }
  return out;
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
      const texts: string[] = [];
      const rawLoop = async (): Promise<void> => {
        texts.length = 0;
        for (const p of paths) {
          if (!statSync(p).isFile()) throw new Error('fixture is not a file');
          const lines = readFileSync(p).toString('utf8').split('\n');
          if (lines[lines.length - 1] === '') lines.pop();
          texts.push(lines.map((l, i) => `${i + 1}\t${l}`).join('\n'));
        }
        await Promise.resolve();
      };
      // same text out: the floor produces exactly what the model gets from read_file
      await rawLoop();
      const check = await runBatch(calls, d, { maxParallel: 1, signal });
      check.results.forEach((r, i) => {
        if (r.status !== 'ok' || r.content !== texts[i]) throw new Error(`read_file ${i} differs from the raw loop: ${r.status} ${r.content.slice(0, 80)}`);
      });
      const [rawSerial = [], serial = [], parallel = []] = await rounds([rawLoop, () => runBatch(calls, d, { maxParallel: 1, signal }), () => runBatch(calls, d, { maxParallel: 8, signal })]);
      return [
        pairedFigure('batch8_parallel_ms', 'ms', parallel, serial, '<= serial batch of the same reads', (v, b) => v <= b, 'same 8 reads through runBatch, max_parallel_readonly_tools=1 (same round; pair with the median ratio)'),
        pairedFigure('batch8_serial_ms', 'ms', serial, rawSerial, '<= 3x the raw loop (the per-step harness budget)', (v, b) => v <= 3 * b, '8 x (stat + readFileSync + number the lines), same text out (checked), same round; pair with the median ratio'),
        ...(await shellFigures()),
      ];
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  },
};

export default suite;
