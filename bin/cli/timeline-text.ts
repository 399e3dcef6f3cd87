// One timeline entry as a line a person reads (attach timeline, the TUI's /timeline): local time, what happened, who.
const two = (n: number): string => String(n).padStart(2, '0');

function time(ts: unknown): string {
  const d = typeof ts === 'string' || typeof ts === 'number' ? new Date(ts) : null;
  return d && !Number.isNaN(d.getTime()) ? `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}` : '--:--:--';
}

const s = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
const oneLine = (v: unknown): string => s(v).replace(/\s+/g, ' ').trim();

export function timelineLine(e: unknown): string {
  if (typeof e !== 'object' || e === null) return String(e);
  const r = e as Record<string, unknown>;
  const at = time(r['ts']);
  switch (r['type']) {
    case 'status':
      return `${at}  status    ${r['from'] === 'new' ? s(r['to']) : `${s(r['from'])} → ${s(r['to'])}`}`;
    case 'delegation':
      return `${at}  delegate  ${s(r['agent'])} ${r['phase'] === 'start' ? 'started' : `ended: ${s(r['status']) || 'done'}`} (call ${s(r['callId'])})`;
    case 'note':
      return `${at}  note      ${s(r['agent'])} wrote ${s(r['ref'])} (${s(r['status'])})${r['conclusion'] ? `: ${oneLine(r['conclusion'])}` : ''}`;
    case 'mention':
      return `${at}  mention   ${s(r['agent'])} named in ${s(r['ref'])} by ${s(r['by'])}`;
    case 'review':
      return `${at}  review    director on ${s(r['agent'])}'s ${s(r['ref'])}: ${oneLine(r['verdict'])}`;
    default: {
      const { ts: _t, type, ...rest } = r;
      return `${at}  ${s(type)}  ${Object.values(rest).map(oneLine).filter((v) => v !== '').join('  ')}`;
    }
  }
}
