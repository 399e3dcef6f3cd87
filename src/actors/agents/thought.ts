// The <thought> block format contract (§10): parse, normalise aliases, validate; failures are data.

export type PlanMark = 'done' | 'current' | 'todo';

export interface PlanItem {
  mark: PlanMark;
  text: string;
}

export interface Thought {
  goal: string;
  step: string;
  reason: string;
  plan: PlanItem[];
}

export type ThoughtParse =
  | { kind: 'ok'; thought: Thought; raw: string }
  | { kind: 'absent' }
  | { kind: 'invalid'; error: string; raw: string };

const OPEN = '<thought>';
const CLOSE = '</thought>';

/** Alias → canonical key; keys are matched lower-cased with inner whitespace collapsed. */
const KEY_ALIASES: Readonly<Record<string, keyof Thought>> = {
  goal: 'goal',
  'current goal': 'goal',
  objective: 'goal',
  step: 'step',
  'current step': 'step',
  'next step': 'step',
  reason: 'reason',
  reasoning: 'reason',
  rationale: 'reason',
  why: 'reason',
  plan: 'plan',
  plans: 'plan',
  todo: 'plan',
};

/** Finds the one block; unpaired or repeated delimiters are an error, none at all is `absent`. */
export function parseThought(text: string): ThoughtParse {
  const opens = countOf(text, OPEN);
  const closes = countOf(text, CLOSE);
  if (opens === 0 && closes === 0) return { kind: 'absent' };
  const start = text.indexOf(OPEN);
  const end = text.indexOf(CLOSE);
  const raw = start >= 0 && end > start ? text.slice(start + OPEN.length, end) : text;
  if (opens !== closes) return { kind: 'invalid', error: `unpaired delimiters (${opens} open, ${closes} close)`, raw };
  if (opens > 1) return { kind: 'invalid', error: `${opens} thought blocks; exactly one is allowed`, raw };
  if (end < start) return { kind: 'invalid', error: 'closing delimiter before opening delimiter', raw };
  const parsed = parseBody(raw);
  if (typeof parsed === 'string') return { kind: 'invalid', error: parsed, raw };
  const problem = validateThought(parsed);
  return problem ? { kind: 'invalid', error: problem, raw } : { kind: 'ok', thought: parsed, raw };
}

/** goal and reason required; at most one in-progress item. */
export function validateThought(t: Thought): string | null {
  if (t.goal.trim() === '') return 'goal is required';
  if (t.reason.trim() === '') return 'reason is required';
  const current = t.plan.filter((p) => p.mark === 'current').length;
  if (current > 1) return `${current} plan items marked [>]; at most one is allowed`;
  return null;
}

/** The reply with its thought block removed (what the user or the Director reads as the answer). */
export function stripThought(text: string): string {
  const start = text.indexOf(OPEN);
  const end = text.indexOf(CLOSE);
  if (start < 0 || end < start) return text.trim();
  return (text.slice(0, start) + text.slice(end + CLOSE.length)).trim();
}

export function renderThought(t: Thought): string {
  const marks: Record<PlanMark, string> = { done: '[x]', current: '[>]', todo: '[ ]' };
  const plan = t.plan.map((p) => `${marks[p.mark]} ${p.text}`);
  return [`goal: ${t.goal}`, `step: ${t.step}`, `reason: ${t.reason}`, 'plan:', ...plan].join('\n');
}

function parseBody(body: string): Thought | string {
  const out: Thought = { goal: '', step: '', reason: '', plan: [] };
  let inPlan = false;
  for (const line of body.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const item = inPlan ? parsePlanItem(trimmed) : null;
    if (item) {
      out.plan.push(item);
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z ]{0,20}?)\s*[:：]\s*(.*)$/.exec(trimmed);
    const key = kv ? KEY_ALIASES[kv[1].toLowerCase().replace(/\s+/g, ' ')] : undefined;
    if (kv && key) {
      const value = kv[2].trim();
      if (key === 'plan') {
        inPlan = true;
        const first = value === '' ? null : parsePlanItem(value);
        if (first) out.plan.push(first);
      } else {
        inPlan = false;
        out[key] = value;
      }
      continue;
    }
    if (inPlan) return `plan line without a marker: "${trimmed.slice(0, 60)}"`;
    return `unknown line in thought block: "${trimmed.slice(0, 60)}"`;
  }
  return out;
}

/** Markers [x] [>] [ ]; tolerant of X, -, * and 1. as the parser contract allows. */
export function parsePlanItem(line: string): PlanItem | null {
  const box = /^(?:[-*]\s*)?\[([ xX>✓\-]?)\]\s*(.*)$/.exec(line);
  if (box) {
    const m = box[1];
    const mark: PlanMark = m === 'x' || m === 'X' || m === '✓' ? 'done' : m === '>' ? 'current' : 'todo';
    return { mark, text: box[2].trim() };
  }
  const bare = /^(?:X\s+|[-*]\s+|\d+[.)]\s+)(.*)$/.exec(line);
  if (bare) return { mark: line.startsWith('X ') ? 'done' : 'todo', text: bare[1].trim() };
  return null;
}

function countOf(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}
