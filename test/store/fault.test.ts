import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitNote } from '../../src/store/blackboard/front-matter.js';
import { parseRecords } from '../../src/store/rollout/lines.js';
import { storeIn, tempRoot } from './helpers.js';

const SCRIPT = resolve('dist/src/store/testing/fault-writer.js');
const TRIALS = 20;
const t = tempRoot('yagent-fault-');
afterAll(() => t.cleanup());

interface Trial {
  path: string;
  acked: number;
  notes: string[];
}

function runAndKill(root: string, killAfterMs: number): Promise<Trial> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [SCRIPT, root], { stdio: ['ignore', 'pipe', 'pipe'] });
    const trial: Trial = { path: '', acked: 0, notes: [] };
    let buf = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        const [k, v] = line.split(' ');
        if (k === 'path') {
          trial.path = v;
          setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        } else if (k === 'ack') trial.acked = Number(v);
        else if (k === 'note') trial.notes.push(v);
      }
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? done(trial) : fail(new Error(`writer exited ${code}: ${err}`))));
  });
}

describe('fault: SIGKILL at random moments', () => {
  it('no acknowledged record is lost, no note is half-written, and replay works (20 trials)', async () => {
    expect(existsSync(SCRIPT), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
    let totalAcked = 0;
    const PARALLEL = 2;
    for (let i = 0; i < TRIALS; i += PARALLEL) {
      const roots = Array.from({ length: PARALLEL }, (_, k) => join(t.dir, `trial-${i + k}`));
      const trials = await Promise.all(roots.map((r) => runAndKill(r, 20 + Math.floor(Math.random() * 150))));
      for (let k = 0; k < PARALLEL; k++) totalAcked += await check(roots[k], trials[k]);
    }
    expect(totalAcked).toBeGreaterThan(0);
  }, 60_000);
});

async function check(root: string, trial: Trial): Promise<number> {
      const { records } = parseRecords(readFileSync(trial.path, 'utf8'));
      const contents = records.flatMap((r) => (r.type === 'response_item' ? [r.payload.content] : []));
      // everything acknowledged is there, in order, before any torn tail
      expect(contents.slice(0, trial.acked)).toEqual(Array.from({ length: trial.acked }, (_, k) => `r${k + 1}`));

      const s = storeIn(root);
      const replay = await s.readReplay(trial.path);
      expect(replay.ok && replay.messages.length).toBeGreaterThanOrEqual(trial.acked);

      const dir = join(root, 'notes', 'fault', 'repo');
      const files = existsSync(dir) ? readdirSync(dir) : [];
      for (const f of files.filter((n) => n.endsWith('.md'))) {
        const { front, body } = splitNote(readFileSync(join(dir, f), 'utf8'));
        expect(front).not.toBeNull();
        const head = JSON.parse(front ?? '{}') as { bodySize: number };
        expect(Buffer.byteLength(body)).toBe(head.bodySize);
      }
      for (const ref of trial.notes) expect(files).toContain(`${ref.split('/')[1]}.md`);
      expect((await s.listNotes('fault')).length).toBe(files.filter((n) => n.endsWith('.md')).length);
      await s.shutdown();
      return trial.acked;
}
