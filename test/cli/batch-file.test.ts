// Batch files: bad lines are named, ids are stable, finished ids survive a torn tail.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendResult, finishedIds, readTasks, repairTail, type BatchResult } from '../../bin/cli/batch-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yagent-batchfile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const result = (id: string): BatchResult => ({
  v: 2,
  type: 'result',
  id,
  task_id: `task-${id}`,
  status: 'ok',
  exit_code: 0,
  result: 'done',
  stop_reason: 'plain_text',
  usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 },
  usage_by_agent: [],
  cost_usd: 0,
  unpriced_models: [],
  notes: [],
  rollout_path: null,
  session_id: null,
  needs_approval: [],
  duration_ms: 1,
  finished_at: 'now',
});

describe('batch files', () => {
  it('an invalid line stops the batch and names file:line', () => {
    const f = join(dir, 't.jsonl');
    writeFileSync(f, '{"prompt":"a"}\n{"promt":"typo"}\n');
    expect(() => readTasks(f)).toThrowError(/invalid task/);
    try {
      readTasks(f);
    } catch (err) {
      expect((err as { where?: string }).where).toBe(`${f}:2`);
    }
  });

  it('ids without "id" are stable across reads and workspaces resolve against the file', () => {
    const f = join(dir, 't.jsonl');
    writeFileSync(f, '{"prompt":"a","workspace":"ws"}\n\n{"id":"b","prompt":"b"}\n');
    const [a1, b1] = readTasks(f);
    const [a2] = readTasks(f);
    expect(a1?.id).toBe(a2?.id);
    expect(a1?.workspace).toBe(join(dir, 'ws'));
    expect(b1).toMatchObject({ id: 'b', line: 3, workspace: dir });
  });

  it('duplicate ids are refused', () => {
    const f = join(dir, 't.jsonl');
    writeFileSync(f, '{"id":"x","prompt":"a"}\n{"id":"x","prompt":"b"}\n');
    expect(() => readTasks(f)).toThrowError(/duplicate task id "x"/);
  });

  it('a torn last result line does not count as finished and is repaired before appending', () => {
    const out = join(dir, 'r.jsonl');
    appendResult(out, result('a'));
    writeFileSync(out, `${readFileSync(out, 'utf8')}{"id":"b","task_`, { flag: 'w' });
    expect([...finishedIds(out)]).toEqual(['a']);
    repairTail(out);
    appendResult(out, result('c'));
    expect([...finishedIds(out)].sort()).toEqual(['a', 'c']);
  });
});
