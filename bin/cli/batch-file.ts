// Batch files: TASKS.jsonl in (one task per line, zod-checked), results.jsonl out (append-only, resumable).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { CliError, EXIT } from './exit-codes.js';
import { ResultObjectSchema } from './stream-json.js';

export const BatchTaskSchema = z.object({
  id: z.string().min(1).optional(),
  prompt: z.string().min(1),
  workspace: z.string().min(1).optional(),
  /** This task's provider and model (over `batch --provider/--model`). */
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  options: z
    .object({ yolo: z.boolean().optional(), full_yolo: z.boolean().optional(), disable_agents: z.array(z.string()).optional() })
    .strict()
    .optional(),
});

export interface BatchTask {
  id: string;
  line: number;
  prompt: string;
  workspace: string;
  options: { yolo?: boolean | undefined; full_yolo?: boolean | undefined; disable_agents?: string[] | undefined };
  provider?: string | undefined;
  model?: string | undefined;
}

/** Parses every line first: a bad line stops the batch before anything runs, naming file and line. */
export function readTasks(file: string): BatchTask[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read the batch file (${(err as NodeJS.ErrnoException).code ?? 'error'})`, EXIT.error, file, 'pass a JSONL file with one {"prompt": …} per line');
  }
  const base = dirname(resolve(file));
  const tasks: BatchTask[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const lineText = raw.trim();
    if (lineText === '' || lineText.startsWith('//')) return;
    let json: unknown;
    try {
      json = JSON.parse(lineText);
    } catch {
      throw new CliError('line is not JSON', EXIT.error, `${file}:${i + 1}`, 'write one JSON object per line');
    }
    const parsed = BatchTaskSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CliError(`invalid task: ${issue?.path.join('.') || 'line'}: ${issue?.message ?? 'invalid'}`, EXIT.error, `${file}:${i + 1}`, 'each line needs "prompt"; optional "id", "workspace", "provider", "model", "options"');
    }
    const t = parsed.data;
    const workspace = resolve(base, t.workspace ?? '.');
    // a stable id when none is given, so a re-run recognises the same task
    const id = t.id ?? `t-${createHash('sha256').update(`${t.prompt}\0${workspace}`).digest('hex').slice(0, 12)}`;
    if (seen.has(id)) throw new CliError(`duplicate task id "${id}"`, EXIT.error, `${file}:${i + 1}`, 'give each task a unique "id"');
    seen.add(id);
    tasks.push({ id, line: i + 1, prompt: t.prompt, workspace, options: t.options ?? {}, provider: t.provider, model: t.model });
  });
  return tasks;
}

/** One results.jsonl line: the result object of `-p --output-format json` (same schema and version), plus the
 *  batch's own `id`, `status` and `finished_at`. */
export const BatchResultSchema = ResultObjectSchema.extend({
  id: z.string(),
  status: z.enum(['ok', 'error', 'needs_approval']),
  finished_at: z.string(),
});
export type BatchResult = z.infer<typeof BatchResultSchema>;

/** Ids that already have a result line; a torn last line (crash mid-append) is ignored. */
export function finishedIds(outFile: string): Set<string> {
  const done = new Set<string>();
  if (!existsSync(outFile)) return done;
  for (const line of readFileSync(outFile, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === 'string') done.add(id);
    } catch {
      // torn line from an interrupted append: that task simply runs again
    }
  }
  return done;
}

/** Called once before appending: a torn tail from a crash mid-append gets its newline back. */
export function repairTail(outFile: string): void {
  if (!existsSync(outFile)) return;
  const text = readFileSync(outFile, 'utf8');
  if (text.length > 0 && !text.endsWith('\n')) appendFileSync(outFile, '\n');
}

/** One append per finished task: a line is written only when the task is done. */
export function appendResult(outFile: string, result: BatchResult): void {
  appendFileSync(outFile, `${JSON.stringify(result)}\n`);
}
