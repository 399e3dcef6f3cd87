// What a queued task carries to a worker: prompt, where it runs, the batch's approval mode. Built from an allow-list
// of the task line's fields, never from config or environment, so no API key can ride along (each worker uses its own).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { readTasks, type BatchTask } from '../batch-file.js';
import { taskSpec, type BatchRun } from '../batch.js';
import { CliError, EXIT } from '../exit-codes.js';

/** A task runs in a path that exists on the worker, or in a private clone of `repo` at `ref`. */
export const WhereSchema = z.union([
  z.object({ kind: z.literal('path'), path: z.string().min(1) }),
  z.object({ kind: z.literal('git'), repo: z.string().min(1), ref: z.string().min(1).optional() }),
]);
export type Where = z.infer<typeof WhereSchema>;

export const JobDataSchema = z.object({
  v: z.literal(1),
  id: z.string().min(1),
  line: z.number(),
  prompt: z.string().min(1),
  where: WhereSchema,
  /** TaskSpec options as the producer resolved them (line options over the batch's -y / -Y / -d). */
  options: z.record(z.string(), z.unknown()),
});
export type JobData = z.infer<typeof JobDataSchema>;

const RepoFields = z.object({ repo: z.string().min(1).optional(), ref: z.string().min(1).optional() });

/** BullMQ refuses a custom id that is a bare integer or holds ':'; the task id is the job id, so such ids are refused. */
function checkJobId(t: BatchTask, file: string): void {
  if (/^\d+$/.test(t.id) || t.id.includes(':')) {
    throw new CliError(`task id "${t.id}" cannot be a queue job id (a bare number or one holding ":")`, EXIT.error, `${file}:${t.line}`, 'give the task an "id" with a letter and no ":"');
  }
}

/** The batch file's tasks as job payloads: `readTasks` checks every line; `repo`/`ref` name a git workspace. */
export function readQueueTasks(file: string, defaults: BatchRun['defaults']): JobData[] {
  const tasks = readTasks(file);
  const lines = readFileSync(file, 'utf8').split('\n');
  return tasks.map((t) => {
    checkJobId(t, file);
    const extra = RepoFields.safeParse(JSON.parse(lines[t.line - 1] ?? '{}'));
    if (!extra.success) throw new CliError('invalid task: "repo" and "ref" must be non-empty strings', EXIT.error, `${file}:${t.line}`, 'write "repo": "GIT_URL", "ref": "BRANCH|TAG|COMMIT"');
    const { repo, ref } = extra.data;
    if (ref !== undefined && repo === undefined) throw new CliError('invalid task: "ref" without "repo"', EXIT.error, `${file}:${t.line}`, 'add "repo": "GIT_URL"');
    const where: Where = repo !== undefined ? { kind: 'git', repo, ...(ref !== undefined ? { ref } : {}) } : { kind: 'path', path: t.workspace };
    const spec = taskSpec(t, defaults);
    return { v: 1, id: t.id, line: t.line, prompt: spec.prompt, where, options: { ...spec.options } };
  });
}
