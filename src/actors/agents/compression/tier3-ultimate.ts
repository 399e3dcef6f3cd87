// Tier 3 (ultimate): rebuild from the thinklink log — [system, brief + plans + last summary] + the last turn —
// then hard-truncate until the list fits.
import type { ChatMessage } from '../wire-types.js';
import type { ThinkEntry } from './thinklink.js';
import { cutToTokens } from './tier1-rule.js';
import { SUMMARY_HEADER } from './tier2-emergency.js';
import { tokensOf } from './tokens.js';
import { recentStart } from './turns.js';

export const REBUILD_HEADER = '[Context rebuilt] The conversation was rebuilt from your plans (thinklink).';

export interface UltimateOptions {
  brief: string;
  plans: readonly ThinkEntry[];
  /** Hard-truncate until the list measures at most this. */
  target: number;
  keepTokens: number;
}

export function ultimateCompress(messages: readonly ChatMessage[], o: UltimateOptions): ChatMessage[] | null {
  const system = messages[0];
  if (system?.role !== 'system') return null;
  const lastSummary = messages.find((m) => m.role === 'user' && m.content.startsWith(SUMMARY_HEADER));
  const summary = lastSummary ? lastSummary.content.slice(lastSummary.content.indexOf('Summary of the work so far:')) : '';
  const plans = o.plans.map((p) => `step ${p.step}:\n${p.text}`).join('\n\n');
  let rebuilt: ChatMessage = { role: 'user', content: `${REBUILD_HEADER}\n\nYour task:\n${o.brief}\n\nYour plans so far:\n${plans}${summary ? `\n\n${summary}` : ''}` };
  let recent = messages.slice(Math.max(1, recentStart(messages, 1)));
  const fits = (): boolean => tokensOf([system, rebuilt, ...recent]) <= o.target;
  // hard truncation, least valuable first: the last turn's tool outputs, then the rebuilt text, then the last turn itself
  if (!fits()) recent = recent.map((m) => (m.role === 'tool' ? { ...m, content: cutToTokens(m.content, o.keepTokens) } : m));
  if (!fits()) rebuilt = { role: 'user', content: cutToTokens(rebuilt.content, Math.max(o.keepTokens, Math.floor(o.target / 2))) };
  if (!fits()) recent = [];
  return [system, rebuilt, ...recent];
}
