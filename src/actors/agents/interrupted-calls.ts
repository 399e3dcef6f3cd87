// A resumed run's calls that started and left no result (the process died meanwhile): never run again. Each gets a
// result saying so, with what the workspace shows now for a call that could change it (the at-most-once rule).
import { lstat, readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import type { ChatMessage } from './wire-types.js';
import { NOT_RECORDED } from './tool-pairs.js';

/** Text of the result an interrupted read-only call gets: it changed nothing, so running it again is safe. */
export const INTERRUPTED_READ =
  'This call was interrupted before its result was recorded (the session was resumed). It changes nothing: call it again if you still need its result.';

/** First words of the result an interrupted call that can change things gets (tests and the ledger report find it). */
export const INTERRUPTED_EFFECT = 'INTERRUPTED, NOT RUN AGAIN:';

const FILE_PATH_ARGS = ['path', 'from', 'to'];
/** How much of a file's current text the result shows. */
const SHOWN_BYTES = 600;

/** `messages` with each "not recorded" result replaced by what the agent needs to decide; `mutates(name)` from the surface. */
export async function describeInterrupted(messages: readonly ChatMessage[], workspace: string, mutates: (name: string) => boolean): Promise<ChatMessage[]> {
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c);
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const call = m.role === 'tool' && m.content === NOT_RECORDED ? calls.get(m.toolCallId) : undefined;
    if (m.role !== 'tool' || call === undefined) {
      out.push(m);
      continue;
    }
    out.push({ ...m, content: mutates(call.name) ? await effectText(call, workspace) : INTERRUPTED_READ });
  }
  return out;
}

async function effectText(call: { name: string; arguments: string }, workspace: string): Promise<string> {
  const args = parseArgs(call.arguments);
  const head = `${INTERRUPTED_EFFECT} this ${call.name} call started, but the process was killed before its result was recorded. It was not run again: its effect is unknown (it may have run fully, partly or not at all).`;
  const paths = FILE_PATH_ARGS.map((k) => args[k]).filter((v): v is string => typeof v === 'string');
  if (paths.length > 0) {
    const facts = await Promise.all(paths.map((p) => fileFact(workspace, p)));
    return [head, 'What the workspace shows now:', ...facts, 'Compare this with what the call was meant to do before doing it again.'].join('\n');
  }
  if (call.name === 'run_bash') {
    const command = typeof args.command === 'string' ? args.command : call.arguments;
    return [head, `The command was: ${command.slice(0, 400)}`, 'Its effects (files, processes, services) are not tracked: inspect what it was meant to change before running it again; run it again only if it is safe to repeat.'].join('\n');
  }
  return [head, 'Check its effect (the page, the service or the files it acts on) before calling it again.'].join('\n');
}

async function fileFact(workspace: string, p: string): Promise<string> {
  const abs = isAbsolute(p) ? p : resolve(workspace, p);
  // only what the workspace holds is shown: a path that leads out of it (.., a linked folder) is not read
  if (!(await inside(workspace, abs))) return `- ${p}: outside the workspace (not inspected)`;
  try {
    const st = await lstat(abs);
    if (st.isDirectory()) return `- ${p}: a directory`;
    if (!st.isFile()) return `- ${p}: exists (not a regular file)`;
    const text = (await readFile(abs)).subarray(Math.max(0, st.size - SHOWN_BYTES)).toString('utf8');
    return `- ${p}: exists, ${st.size} bytes, modified ${st.mtime.toISOString()}; ${st.size > SHOWN_BYTES ? `its last ${SHOWN_BYTES} bytes` : 'its content'}:\n${text}`;
  } catch (e) {
    return (e as { code?: unknown }).code === 'ENOENT' ? `- ${p}: does not exist` : `- ${p}: cannot be read (${(e as Error).message})`;
  }
}

async function inside(workspace: string, abs: string): Promise<boolean> {
  const root = await realpath(workspace).catch(() => resolve(workspace));
  const dir = await realpath(dirname(abs)).catch(() => null);
  if (dir === null) return resolve(abs).startsWith(resolve(workspace) + sep);
  return dir === root || dir.startsWith(root + sep);
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
