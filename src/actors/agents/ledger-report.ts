// What a delegation's ledger holds, as the text its parent reads: tools run, files changed, last thoughts.
import type { ChatMessage } from './wire-types.js';
import { callsWithResults } from './tool-pairs.js';

const FILE_TOOLS = new Set(['create_file', 'edit_file', 'delete_file', 'rename_file']);

/** The handoff report of C: tools run, files changed, last thoughts — what the ledger holds, never silence. */
export function degradedReport(target: string, reason: string, messages: readonly ChatMessage[]): string {
  return [
    `The ${target} delegation was interrupted and cannot be continued from its ledger: ${reason}. What its ledger holds:`,
    ...ledgerLines(messages),
    'Check the workspace, then delegate only the remaining work; do not redo what is listed as done.',
  ].join('\n');
}

/** Tools run, files changed and the last thoughts of a conversation, one line each. */
export function ledgerLines(messages: readonly ChatMessage[]): string[] {
  const ran = callsWithResults(messages).filter((c) => c.result !== null);
  const counts = new Map<string, number>();
  for (const c of ran) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  const last = [...messages].reverse().find((m) => m.role === 'assistant' && m.content.trim() !== '');
  const files = changedFiles(messages);
  const commands = ran.filter((c) => c.name === 'run_bash').map((c) => commandOf(c.arguments)).filter((c) => c !== '');
  return [
    `Tools run: ${counts.size === 0 ? 'none recorded' : [...counts].map(([n, k]) => `${n} ×${k}`).join(', ')}`,
    ...(commands.length > 0 ? [`Commands run: ${commands.map((c) => `\`${c.slice(0, 200)}\``).join(', ').slice(0, 2000)}`] : []),
    `Files changed: ${files.length === 0 ? 'none recorded' : files.join(', ')}`,
    `Last thoughts: ${last ? last.content.trim().slice(0, 800) : 'none recorded'}`,
  ];
}

/** Paths the conversation's successful file tools changed, in first-touch order. */
export function changedFiles(messages: readonly ChatMessage[]): string[] {
  const files = new Set<string>();
  for (const c of callsWithResults(messages)) {
    if (c.result === null || !FILE_TOOLS.has(c.name) || c.result.startsWith('{"error"')) continue;
    for (const p of pathsOf(c.arguments)) files.add(p);
  }
  return [...files];
}

/** The command line of a run_bash call ('' when its arguments do not parse). */
function commandOf(args: string): string {
  try {
    const c = (JSON.parse(args) as { command?: unknown }).command;
    return typeof c === 'string' ? c.trim() : '';
  } catch {
    return '';
  }
}

function pathsOf(args: string): string[] {
  try {
    const a = JSON.parse(args) as Record<string, unknown>;
    return ['path', 'from', 'to', 'new_path'].map((k) => a[k]).filter((v): v is string => typeof v === 'string');
  } catch {
    return [];
  }
}

/** What the next turn's Director reads for a delegation the user cancelled: it is not resumed, and what it did. */
export function cancelledReport(target: string, messages: readonly ChatMessage[]): string {
  return [
    `[${target} cancelled by the user]`,
    `The user cancelled the ${target} delegation before it finished; it is not resumed. What it did before it was stopped:`,
    ...ledgerLines(messages),
    'Do not redo or continue this work unless the user asks for it again.',
  ].join('\n');
}
