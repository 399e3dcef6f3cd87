// Batches: consecutive parallel-safe calls run together (≤ max_parallel_readonly_tools), everything else
// alone, in order. Every call gets exactly one result, in call order, including cancelled ones.
import { z } from 'zod';
import type { ToolCall, SerializedError } from '../../runtime/protocol/index.js';
import type { ToolDeclaration } from './types.js';
import { callTool, cancelledResult, errorResult, type AdapterDeps, type ToolResult } from './adapter.js';

export const MaxParallelReadonlySchema = z.number().int().min(1).max(8).default(4);
export const DEFAULT_MAX_PARALLEL_READONLY = 4;

/** THE concurrency predicate (derived from tags). An unloaded cold call only gets a teach receipt, so it is parallel too.
 *  An isolated writer (a write delegation in its own worktree) is parallel only where the batch says worktrees work. */
export function isParallelizable(decl: ToolDeclaration | undefined, coldPending = false, isolatedWriters = false): boolean {
  if (decl === undefined || coldPending) return true;
  if (decl.tags.isolatedWriter === true) return isolatedWriters;
  return !decl.tags.mutates && !decl.tags.serial;
}

export interface BatchOptions {
  /** max_parallel_readonly_tools: 1..8, 1 = serial. */
  maxParallel?: number;
  signal: AbortSignal;
  onStart?(call: ToolCall): void;
  onResult?(result: ToolResult): void;
  /** The write-ahead record: awaited before each call that can change anything (tag `mutates`); a rejection
   *  means the call is not durable, so it does not run (at most once across a kill). */
  beforeEffect?(call: ToolCall): Promise<void>;
  /** Isolated writers run beside others (each delegation in its own git worktree): the runner found a repository. */
  isolatedWriters?: boolean;
}

export interface BatchResult {
  results: ToolResult[];
  /** Set when a call failed fatally: the turn ends; later calls got `cancelled` results. */
  fatal: SerializedError | null;
}

/** Groups of call indexes: a run of parallel-safe calls, or one serial call. */
export function planBatches(calls: readonly ToolCall[], deps: Pick<AdapterDeps, 'surface'>, isolatedWriters = false): number[][] {
  const groups: number[][] = [];
  let run: number[] = [];
  calls.forEach((c, i) => {
    if (isParallelizable(deps.surface.get(c.name), deps.surface.isColdPending(c.name), isolatedWriters)) {
      run.push(i);
      return;
    }
    if (run.length > 0) groups.push(run);
    run = [];
    groups.push([i]);
  });
  if (run.length > 0) groups.push(run);
  return groups;
}

export async function runBatch(calls: readonly ToolCall[], deps: AdapterDeps, opts: BatchOptions): Promise<BatchResult> {
  const limit = MaxParallelReadonlySchema.parse(opts.maxParallel ?? DEFAULT_MAX_PARALLEL_READONLY);
  const results: (ToolResult | undefined)[] = new Array<ToolResult | undefined>(calls.length);
  let fatal: SerializedError | null = null;
  const runOne = async (i: number): Promise<void> => {
    const call = calls[i] as ToolCall;
    if (fatal !== null) {
      results[i] = cancelledResult(call, 'Not run: an earlier call in this batch failed fatally.');
    } else {
      opts.onStart?.(call);
      const unrecorded = deps.surface.get(call.name)?.tags.mutates === true ? await writeAhead(call, opts) : null;
      results[i] = unrecorded ?? (await callTool(call, deps, opts.signal));
      const r = results[i];
      if (r.status === 'fatal' && r.fatal) fatal ??= r.fatal;
    }
    opts.onResult?.(results[i] as ToolResult);
  };
  for (const group of planBatches(calls, deps, opts.isolatedWriters === true)) {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < group.length) await runOne(group[next++] as number);
    };
    await Promise.all(Array.from({ length: Math.min(limit, group.length) }, lane));
  }
  return { results: results.map((r, i) => r ?? cancelledResult(calls[i] as ToolCall)), fatal };
}

/** null once the call is durable; else the error result it gets instead of running. */
async function writeAhead(call: ToolCall, opts: BatchOptions): Promise<ToolResult | null> {
  if (!opts.beforeEffect) return null;
  try {
    await opts.beforeEffect(call);
    return null;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return errorResult(call, 'not_recorded', `Not run: the call could not be recorded before it ran (${why}), and a call that changes anything runs only once it is recorded. Try again later.`);
  }
}
