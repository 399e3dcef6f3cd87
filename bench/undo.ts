// Undo suite (issue 26): the snapshot before a delegation on a generated 10,000-file repository, against plain git
// doing the same work in the same run (`git add -A && git write-tree` into a fresh index and object store), and the
// incremental snapshot after a one-file change.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreService } from '../src/store/service.js';
import { figure, ms, pairedFigure, repeat, stats, type Figure, type Suite } from './lib.js';

const RUNS = 7;
/** `BENCH_UNDO_PAIRS=N` (default 3): full snapshots take seconds each on a loaded machine. */
const FIRST_PAIRS = Math.max(1, Number(process.env.BENCH_UNDO_PAIRS ?? '3') || 3);
const FILES = 10_000;

/** 10,000 files of 200-2,000 bytes in 100 directories, committed, plus an ignored build dir; generated, never kept. */
function generateRepo(root: string): string {
  const ws = join(root, 'repo');
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(ws, `src/mod${d}`), { recursive: true });
    for (let f = 0; f < FILES / 100; f++) writeFileSync(join(ws, `src/mod${d}/file${f}.ts`), `// module ${d} file ${f}\n${'export const x = 1;\n'.repeat(10 + ((d * 7 + f) % 90))}`);
  }
  mkdirSync(join(ws, 'build'));
  writeFileSync(join(ws, 'build/out.js'), 'ignored');
  writeFileSync(join(ws, '.gitignore'), 'build/\n');
  const git = (...a: string[]): void => void execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...a], { cwd: ws, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'generated');
  return ws;
}

/** The baseline: plain git, a fresh object store and index, `add -A` then `write-tree`. */
function plainGit(ws: string, scratch: string): Promise<number> {
  const dir = mkdtempSync(join(scratch, 'plain-'));
  const env = { PATH: process.env.PATH, HOME: scratch, GIT_DIR: join(dir, 'git'), GIT_WORK_TREE: ws, GIT_INDEX_FILE: join(dir, 'index') };
  const t0 = process.hrtime.bigint();
  execFileSync('git', ['init', '-q', '--bare', join(dir, 'git')], { env: { PATH: process.env.PATH, HOME: scratch }, stdio: 'ignore' });
  execFileSync('git', ['add', '-A'], { cwd: ws, env, stdio: 'ignore' });
  execFileSync('git', ['write-tree'], { cwd: ws, env, stdio: 'ignore' });
  const t = ms(t0);
  rmSync(dir, { recursive: true, force: true });
  return Promise.resolve(t);
}

/** Ours: the store's first undo point of the workspace (a fresh data root: its shadow repository is created). */
async function firstPoint(ws: string, scratch: string): Promise<number> {
  const root = mkdtempSync(join(scratch, 'home-'));
  const store = new StoreService({ root, notesRoot: join(root, 'notes') });
  const t0 = process.hrtime.bigint();
  await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 'bench' });
  const t = ms(t0);
  await store.shutdown();
  rmSync(root, { recursive: true, force: true });
  return t;
}

const suite: Suite = {
  name: 'undo',
  async run(): Promise<Figure[]> {
    const scratch = mkdtempSync(join(tmpdir(), 'yagent-bench-undo-'));
    try {
      const ws = generateRepo(scratch);
      // a full snapshot of 10,000 files takes seconds on a loaded machine: 3 pairs, order swapped each pair
      const ours: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < FIRST_PAIRS; i++) {
        if (i % 2 === 0) ours.push(await firstPoint(ws, scratch));
        base.push(await plainGit(ws, scratch));
        if (i % 2 === 1) ours.push(await firstPoint(ws, scratch));
        process.stderr.write(`undo: pair ${i + 1}: ours ${ours[i]?.toFixed(0)} ms, plain git ${base[i]?.toFixed(0)} ms\n`);
      }
      const first = pairedFigure('undo_snapshot_10k_files_ms', 'ms', ours, base, '<= 1.5x', (v, b) => v <= 1.5 * b, 'git add -A && git write-tree into a fresh index and object store, same tree');

      const root = mkdtempSync(join(scratch, 'home-inc-'));
      const store = new StoreService({ root, notesRoot: join(root, 'notes') });
      await store.undoPoint({ workspace: ws, kind: 'turn', agent: 'director', taskId: 'bench' });
      // for scale, not for the target: plain git's own incremental add -A + write-tree on a populated index
      const plainDir = mkdtempSync(join(scratch, 'plain-inc-'));
      const env = { PATH: process.env.PATH, HOME: scratch, GIT_DIR: join(plainDir, 'git'), GIT_WORK_TREE: ws, GIT_INDEX_FILE: join(plainDir, 'index') };
      execFileSync('git', ['init', '-q', '--bare', join(plainDir, 'git')], { env: { PATH: process.env.PATH, HOME: scratch }, stdio: 'ignore' });
      execFileSync('git', ['add', '-A'], { cwd: ws, env, stdio: 'ignore' });
      let n = 0;
      const change = (): void => writeFileSync(join(ws, 'src/mod3/file7.ts'), `// changed ${++n}\n`);
      const inc: number[] = [];
      const plain: number[] = [];
      await repeat(RUNS, async () => {
        change();
        let t0 = process.hrtime.bigint();
        await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 'bench' });
        inc.push(ms(t0));
        change();
        t0 = process.hrtime.bigint();
        execFileSync('git', ['add', '-A'], { cwd: ws, env, stdio: 'ignore' });
        execFileSync('git', ['write-tree'], { cwd: ws, env, stdio: 'ignore' });
        plain.push(ms(t0));
        return 0;
      }, 0);
      await store.shutdown();
      const incremental = figure('undo_snapshot_incremental_one_file_ms', 'ms', inc, '<= 50 ms', (v) => v <= 50, { label: 'plain git add -A && write-tree on a populated index after a one-file change (scale only)', value: stats(plain).median });
      return [first, incremental];
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};

export default suite;
