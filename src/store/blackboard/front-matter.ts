// Note text = front-matter (the Handoff) + body. parseHandoff never fails and never returns nothing (seed rule 4).
import { HandoffSchema, HandoffStatusSchema, type Handoff } from '../../runtime/protocol/index.js';

const OPEN = '---\n';
const CLOSE = '\n---\n';

export interface StoredFront {
  handoff: Handoff;
  createdAt: string;
  bodySize: number;
}

export function serializeNote(front: StoredFront, body: string): string {
  const head = JSON.stringify({ ...front.handoff, createdAt: front.createdAt, bodySize: front.bodySize });
  return `${OPEN}${head}${CLOSE}${body}`;
}

/** Splits front-matter from body; null front when there is none or it never closes. */
export function splitNote(text: string): { front: string | null; body: string } {
  if (!text.startsWith(OPEN)) return { front: null, body: text };
  const end = text.indexOf(CLOSE, OPEN.length - 1);
  if (end < 0) return { front: null, body: text };
  return { front: text.slice(OPEN.length, end), body: text.slice(end + CLOSE.length) };
}

/** v1 front-matter was `key: value` lines; JSON objects are read as they are. */
function decodeFront(front: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(front);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    const out: Record<string, unknown> = {};
    for (const line of front.split('\n')) {
      const m = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
      if (m) out[m[1].toLowerCase()] = m[2].replace(/^"(.*)"$/, '$1');
    }
    return Object.keys(out).length > 0 ? out : null;
  }
}

function firstLine(body: string): string {
  const line = body.split('\n').find((l) => l.trim().length > 0) ?? '';
  return line.trim().slice(0, 200) || '(empty note)';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Three fallbacks, worst case `degraded: 'absent'`: v2 as written → v1 synthesised (read-only) → absent/malformed. */
export function parseHandoff(text: string, agentFallback: string): Handoff {
  const { front, body } = splitNote(text);
  if (front === null) {
    return { version: 2, agent: agentFallback, status: 'ok', conclusion: firstLine(body), facts: [], artifacts: [], mentions: [], degraded: 'absent' };
  }
  const obj = decodeFront(front);
  if (obj && obj.version === 2) {
    const r = HandoffSchema.safeParse(obj);
    if (r.success) return r.data;
  }
  if (obj && typeof obj.summary === 'string' && obj.version === undefined) {
    const st = HandoffStatusSchema.safeParse(obj.status);
    return {
      version: 2,
      agent: typeof obj.agent === 'string' ? obj.agent : agentFallback,
      status: st.success ? st.data : 'ok',
      conclusion: obj.summary,
      facts: [],
      artifacts: strings(obj.artifacts),
      mentions: [],
      degraded: 'v1',
    };
  }
  return { version: 2, agent: agentFallback, status: 'ok', conclusion: firstLine(body), facts: [], artifacts: [], mentions: [], degraded: 'malformed' };
}

/** Front-matter fields beside the handoff (creation time, body size), tolerant of v1 notes. */
export function frontExtras(text: string): { createdAt: string | null; bodySize: number | null } {
  const { front, body } = splitNote(text);
  const obj = front === null ? null : decodeFront(front);
  const createdAt = obj && typeof obj.createdAt === 'string' ? obj.createdAt : null;
  const bodySize = obj && typeof obj.bodySize === 'number' ? obj.bodySize : front === null ? Buffer.byteLength(body) : null;
  return { createdAt, bodySize };
}
