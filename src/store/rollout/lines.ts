// Reads a rollout file as records: a torn last line is skipped and reported, never fatal.
import { promises as fsp } from 'node:fs';
import type { ReadIssues, RolloutRecord } from '../api.js';
import { parseRecordLine } from './schema.js';
import { isMissing } from '../errors.js';

export interface ReadRecords {
  records: RolloutRecord[];
  issues: ReadIssues;
  bytes: number;
}

/** Splits JSONL text; the unterminated last segment is a torn tail when it does not parse. */
export function parseRecords(text: string, fromFileStart = true): { records: RolloutRecord[]; issues: ReadIssues } {
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  const records: RolloutRecord[] = [];
  let corruptLines = 0;
  parts.forEach((line, i) => {
    if (line.length === 0) return;
    const r = parseRecordLine(line);
    if (r) records.push(r);
    // a tail window starts mid-line: its first segment is not corruption
    else if (fromFileStart || i > 0) corruptLines++;
  });
  let tornTail = false;
  if (last.length > 0) {
    const r = parseRecordLine(last);
    if (r) records.push(r);
    else tornTail = true;
  }
  return { records, issues: { tornTail, corruptLines } };
}

export async function fileSize(path: string): Promise<number | null> {
  try {
    return (await fsp.stat(path)).size;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

export async function readRecords(path: string): Promise<ReadRecords> {
  const text = await fsp.readFile(path, 'utf8');
  return { ...parseRecords(text), bytes: Buffer.byteLength(text) };
}

/** The last `window` bytes of a file as text (whole file when smaller). */
export async function readTail(path: string, window: number): Promise<{ text: string; fromStart: boolean }> {
  const fh = await fsp.open(path, 'r');
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - window);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    return { text: buf.toString('utf8'), fromStart: start === 0 };
  } finally {
    await fh.close();
  }
}
