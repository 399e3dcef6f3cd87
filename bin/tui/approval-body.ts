// What an approval dialog shows: the question, the tool, its arguments one per line (never a JSON blob wrapped
// mid-word), and for a write or an edit a preview of the content or the change (the dialog scrolls when it is long).
const MAX_PREVIEW_LINES = 400;

function valueText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function preview(title: string, text: string, mark: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const shown = lines.slice(0, MAX_PREVIEW_LINES).map((l) => `${mark}${l}`);
  const cut = lines.length - shown.length;
  return [title, ...shown, ...(cut > 0 ? [`… ${cut} more lines`] : [])];
}

/** The preview of a write (`content`) or an edit (`old_string` → `new_string`); [] for other tools. */
function change(tool: string, args: Record<string, unknown>): string[] {
  if (typeof args['content'] === 'string' && /create|write/.test(tool)) {
    const n = args['content'].split('\n').length - (args['content'].endsWith('\n') ? 1 : 0);
    return ['', ...preview(`content (${n} line${n === 1 ? '' : 's'}):`, args['content'], '  ')];
  }
  if (typeof args['old_string'] === 'string' && typeof args['new_string'] === 'string') {
    const all = args['replace_all'] === true ? ' (every occurrence)' : '';
    return ['', `change${all}:`, ...preview('', args['old_string'], '- ').slice(1), ...preview('', args['new_string'], '+ ').slice(1)];
  }
  return [];
}

const PREVIEWED = new Set(['content', 'old_string', 'new_string', 'replace_all']);

/** The dialog body for `user_help_needed`: `detail` is the call's arguments as JSON (anything else is shown as is). */
export function approvalBody(question: string, tool: string | undefined, detail: string | undefined): string {
  const out = [question];
  let args: Record<string, unknown> | null = null;
  try {
    const v = detail !== undefined ? (JSON.parse(detail) as unknown) : null;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) args = v as Record<string, unknown>;
  } catch {
    args = null;
  }
  if (tool) out.push('', `tool: ${tool}`);
  if (args === null) return [...out, ...(detail ? [detail] : [])].join('\n');
  const preview = change(tool ?? '', args);
  for (const [k, v] of Object.entries(args)) if (!(preview.length > 0 && PREVIEWED.has(k))) out.push(`${k}: ${valueText(v)}`);
  return [...out, ...preview].join('\n');
}
