// The `tools` suite's shell figures: run_bash's OS sandbox per command against the same command spawned bare in
// the same run, the word check per command against that bare spawn, and the bash parser's first load in a fresh
// thread against a bare worker start (the parser loads lazily at a thread's first run_bash check).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { surfaceFor } from '../src/actors/tools/profiles.js';
import { WorkspaceGuard } from '../src/actors/tools/workspace-guard.js';
import { Boundary, boundaryPolicy } from '../src/actors/tools/boundary.js';
import { probeSandbox } from '../src/actors/tools/sandbox-probe.js';
import { runSandboxed, shellSandbox } from '../src/actors/tools/sandbox-run.js';
import { bwrapArgs } from '../src/actors/tools/sandbox-plan.js';
import { buildShellEnv } from '../src/actors/tools/shell-env.js';
import { figure, ms, pairedFigure, repeat, stats, type Figure } from './lib.js';

const ROUNDS = 15;
const PER_SAMPLE = 8;
/** What models run: pipes, globs, redirections, variables, a heredoc, a nested shell. */
const COMMANDS = [
  'npm test -- --reporter=dot 2>&1 | tail -20',
  'cat src/*.ts | wc -l && ls -la ~/projects',
  'for f in src/*.ts; do grep -n "TODO" "$f" || true; done > todo.txt',
  "cat > notes.md <<'EOF'\nSee ../README.md and `make test` for ${details}.\nEOF",
  'bash -c \'cd src && git diff --stat HEAD~1\' && echo "done in $PWD"',
];

/** `bash -c CMD` spawned bare and waited for (the primitive run_bash is built on). */
function bare(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return spawnWait('bash', ['-c', command], cwd, env);
}

/** A program spawned bare and waited for (stdout and stderr drained). */
function spawnWait(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout.resume();
    c.stderr.resume();
    c.on('error', reject);
    c.on('close', () => resolve());
  });
}

/** Spawn → first message of a worker that imports `url` and times its first parse. */
function parserLoadInWorker(url: string | null): Promise<number> {
  const code = url === null
    ? `require('node:worker_threads').parentPort.postMessage(0);`
    : `const t0 = performance.now(); import(${JSON.stringify(url)}).then((m) => m.parseBash('echo hi > out.txt')).then(() => { require('node:worker_threads').parentPort.postMessage(performance.now() - t0); });`;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const w = new Worker(code, { eval: true });
    w.once('message', (inner: number) => {
      const total = ms(t0);
      void w.terminate();
      resolve(url === null ? total : inner);
    });
    w.once('error', reject);
  });
}

export async function shellFigures(distRoot = join(import.meta.dirname, '..')): Promise<Figure[]> {
  const base = mkdtempSync(join(tmpdir(), 'yagent-bench-shell-'));
  try {
    const ws = join(base, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    const env = buildShellEnv(process.env);
    const out: Figure[] = [];
    const boundary = new Boundary(ws, boundaryPolicy(process.env, []));
    const support = await probeSandbox(env);
    // the same command, the sandbox's way and bare, alternating within each round
    const echo = 'echo hi';
    const sandboxed: number[] = [];
    const bareSpawn: number[] = [];
    if (support.ok) {
      const run = (): Promise<unknown> => runSandboxed({ command: echo, cwd: ws, env, timeoutMs: 10_000, signal: new AbortController().signal, support, workspace: ws, boundary: boundary.resolved(), home: boundary.policy.home, writable: [] });
      const sample = async (fn: () => Promise<unknown>): Promise<number> => {
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < PER_SAMPLE; i++) await fn();
        return ms(t0) / PER_SAMPLE;
      };
      await run();
      await bare(echo, ws, env);
      for (let r = 0; r < ROUNDS; r++) {
        // order swapped each round: load drift does not favour one side
        if (r % 2 === 0) {
          sandboxed.push(await sample(run));
          bareSpawn.push(await sample(() => bare(echo, ws, env)));
        } else {
          bareSpawn.push(await sample(() => bare(echo, ws, env)));
          sandboxed.push(await sample(run));
        }
      }
      // the floor: bwrap itself with the same mount plan, spawned bare (no temp dir, no process group, no scan)
      const floorTmp = join(base, 'floor-tmp');
      mkdirSync(floorTmp);
      const floorArgs = bwrapArgs({ workspace: ws, cwd: ws, tmp: floorTmp, writable: [], boundary: boundary.resolved(), home: boundary.policy.home, flags: support.flags }, ['bash', '-c', echo]);
      const floor: number[] = [];
      const ours: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const bw = (): Promise<void> => spawnWait(support.bwrap, floorArgs, ws, env);
        if (r % 2 === 0) {
          ours.push(await sample(run));
          floor.push(await sample(bw));
        } else {
          floor.push(await sample(bw));
          ours.push(await sample(run));
        }
      }
      out.push(pairedFigure('run_bash_sandbox_over_bwrap_ms', 'ms', ours, floor, '<= 1.2x bwrap alone (what yagent adds over the namespace floor)', (v, b) => v <= 1.2 * b, 'the same bwrap argv (production mount plan) spawned bare, same round, alternating; ours: runSandboxed'));
      out.push(pairedFigure('run_bash_sandboxed_echo_ms', 'ms', sandboxed, bareSpawn, '<= 1.5x the bare spawn, or <= 10 ms more', (v, b) => v <= 1.5 * b || v - b <= 10, '`bash -c "echo hi"` spawned bare (child_process.spawn, wait for close), same round, alternating; ours: bwrap with the production mounts (runSandboxed)'));
    } else {
      process.stderr.write(`tools: no sandbox here (${support.reason}): run_bash_sandboxed_echo_ms is not measured\n`);
    }
    // the guard's whole check of a run_bash call (parse, evaluate every word, resolve every path)
    const guard = new WorkspaceGuard(ws, boundary, env, shellSandbox('auto', [], env, boundary.policy.home));
    const decl = surfaceFor('coding').get('run_bash');
    if (!decl) throw new Error('no run_bash on the coding surface');
    for (const c of COMMANDS) await guard.check(decl, { command: c, is_dangerous: false });
    const checks: number[] = [];
    const spawns: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = process.hrtime.bigint();
      for (const c of COMMANDS) await guard.check(decl, { command: c, is_dangerous: false });
      checks.push(ms(t0) / COMMANDS.length);
      const t1 = process.hrtime.bigint();
      await bare(echo, ws, env);
      spawns.push(ms(t1));
    }
    out.push(pairedFigure('run_bash_word_check_ms', 'ms', checks, spawns, '<= 0.1x a bare spawn of `echo hi` (the check is noise next to running any command)', (v, b) => v <= 0.1 * b, `guard.check of run_bash, mean over ${COMMANDS.length} typical command lines (pipes, globs, a heredoc, a nested shell); baseline: one bare \`bash -c "echo hi"\` spawn, same round`));
    // first load of the parser in a fresh thread vs. a bare worker's start
    const url = pathToFileURL(join(distRoot, 'src', 'actors', 'tools', 'shell-parser.js')).href;
    const loads = await repeat(5, () => parserLoadInWorker(url));
    const workers = await repeat(5, () => parserLoadInWorker(null));
    out.push(figure('bash_parser_load_ms', 'ms', loads, '<= 1.5x a bare worker start (paid once per thread, at its first run_bash)', (v, b) => v <= 1.5 * (b ?? 0), { label: 'bare worker: spawn → first message, same run (median of 5)', value: stats(workers).median }));
    return out;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
