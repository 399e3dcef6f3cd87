// Tier 2 (emergency): the last 3 turns verbatim, everything older summarised by one LLM call; plans are
// already in the thinklink store, so they are stripped from what the summariser reads. A later summary is
// incremental: the previous summary plus what happened since, never the whole history again.
import type { LlmEngine } from '../../llm/types.js';
import type { ChatMessage } from '../wire-types.js';
import { stripThought } from '../thought.js';
import { recentStart } from './turns.js';

export const KEEP_TURNS = 3;
export const SUMMARY_HEADER = '[Context compressed] The earlier part of this conversation was summarised.';
/** What the summariser reads at most (chars): a long history must not overflow the summary call itself. */
export const TRANSCRIPT_CHARS = 48_000;
const PER_MESSAGE_CHARS = 1_500;

const SUMMARISER_SYSTEM =
  'You compress the working history of a coding agent. Write a concise summary that lets the agent continue: the task, what it has done, files and facts it found (paths, names, numbers), decisions taken, and what is still open. Plain text, no preamble.';

const SUMMARY_AT = 'Summary of the work so far:\n';
const INCREMENTAL =
  ' You are given the previous summary and what happened since: return the one updated summary (keep what still matters from the previous one).';

/** The summary's user message: the brief (so the task survives) plus the summary text. */
export function summaryMessage(brief: string, summary: string): ChatMessage {
  return { role: 'user', content: `${SUMMARY_HEADER}\n\nYour task:\n${brief}\n\n${SUMMARY_AT}${summary}` };
}

/** The summary text of an earlier tier-2 message at the head of the list, or null when there is none. */
export function previousSummary(m: ChatMessage | undefined): string | null {
  if (m?.role !== 'user' || !m.content.startsWith(SUMMARY_HEADER)) return null;
  const at = m.content.indexOf(SUMMARY_AT);
  return at < 0 ? null : m.content.slice(at + SUMMARY_AT.length);
}

function render(m: ChatMessage): string {
  const cap = (s: string): string => (s.length > PER_MESSAGE_CHARS ? `${s.slice(0, PER_MESSAGE_CHARS)} …` : s);
  switch (m.role) {
    case 'system':
      return '';
    case 'user':
      return `USER: ${cap(m.content)}`;
    case 'assistant':
      return [`ASSISTANT: ${cap(stripThought(m.content))}`, ...(m.toolCalls ?? []).map((c) => `CALL ${c.name} ${cap(c.arguments)}`)].join('\n');
    case 'tool':
      return `RESULT ${m.name}: ${cap(m.content)}`;
  }
}

/** The part to summarise as text, newest kept when it is longer than `maxChars`. */
export function transcript(part: readonly ChatMessage[], maxChars = TRANSCRIPT_CHARS): string {
  const text = part.map(render).filter((s) => s !== '').join('\n');
  return text.length > maxChars ? `… ${text.slice(-maxChars)}` : text;
}

export interface EmergencyDeps {
  summarizer: LlmEngine;
  brief: string;
  signal: AbortSignal;
  /** Transcript budget in chars (default TRANSCRIPT_CHARS); the compressor gives about half the threshold. */
  maxChars?: number;
  /** Turns kept verbatim (default KEEP_TURNS). */
  keepTurns?: number;
  /** The summary's length the window allows, in words (absent = no bound asked for). */
  maxWords?: number;
}

/** [system, one user summary] + the recent turns; null when there is nothing older than the recent turns (or nothing
 *  new since the previous summary). */
export async function emergencyCompress(messages: readonly ChatMessage[], d: EmergencyDeps): Promise<ChatMessage[] | null> {
  const cut = recentStart(messages, d.keepTurns ?? KEEP_TURNS);
  const system = messages[0];
  // only the brief (or the previous summary) before the recent turns: nothing a summary could shrink
  if (system?.role !== 'system' || cut <= 2) return null;
  const previous = previousSummary(messages[1]);
  const older = messages.slice(previous !== null ? 2 : 1, cut);
  const told = transcript(older, d.maxChars);
  const bound = d.maxWords !== undefined ? ` At most about ${d.maxWords} words.` : '';
  let summary: string;
  try {
    const res = await d.summarizer.call({
      messages: [
        { role: 'system', content: `${SUMMARISER_SYSTEM}${previous !== null ? INCREMENTAL : ''}${bound}` },
        { role: 'user', content: previous !== null ? `Previous summary:\n${previous}\n\nWhat happened since:\n${told}` : told },
      ],
      tools: [],
      signal: d.signal,
      agent: 'compression',
    });
    summary = stripThought(res.text).trim();
  } catch (err) {
    if (d.signal.aborted) throw err;
    summary = '';
  }
  // a failed or empty summary still compresses: the calls made are listed mechanically
  if (summary === '') summary = `${previous !== null ? `${previous}\n` : ''}${mechanicalSummary(older)}`;
  return [system, summaryMessage(d.brief, summary), ...messages.slice(cut)];
}

function mechanicalSummary(older: readonly ChatMessage[]): string {
  const calls = older.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => `${c.name} ${c.arguments.slice(0, 120)}`) : []));
  return calls.length > 0 ? `(summary unavailable) Tool calls made so far:\n${calls.join('\n')}` : '(summary unavailable)';
}
