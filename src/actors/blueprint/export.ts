// `[blueprint] export_path`: the blueprint as a Markdown block inside a workspace file, rewritten after every fold, so
// people and other tools read what the agents read. Only the text between the markers is ours; the rest is kept as is.
import { promises as fsp } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { atomicWrite } from '../../runtime/atomic-write.js';
import { exportPathProblem } from '../../runtime/config/blueprint-export.js';

export const EXPORT_BEGIN = '<!-- YAGENT_BLUEPRINT (written by yagent after each Repo fold; edits inside are replaced) -->';
export const EXPORT_END = '<!-- /YAGENT_BLUEPRINT -->';
const PUBLIC_FILE_MODE = 0o644;

/** `text` with the blueprint block replaced (or appended when it has none). */
export function spliceBlock(text: string, block: string): string {
  const fenced = `${EXPORT_BEGIN}\n${block.trimEnd()}\n${EXPORT_END}\n`;
  const a = text.indexOf(EXPORT_BEGIN);
  const b = a < 0 ? -1 : text.indexOf(EXPORT_END, a);
  if (a >= 0 && b >= 0) {
    let end = b + EXPORT_END.length;
    if (text[end] === '\n') end++;
    return text.slice(0, a) + fenced + text.slice(end);
  }
  if (text === '') return fenced;
  return `${text}${text.endsWith('\n') ? '' : '\n'}\n${fenced}`;
}

/** Writes the block into `workspace/exportPath` (atomically; the file's mode is kept). Returns whether it changed. */
export async function writeExport(workspace: string, exportPath: string, block: string): Promise<boolean> {
  const problem = exportPathProblem(exportPath);
  if (problem !== null) throw new Error(`[blueprint] export_path "${exportPath}" ${problem}`);
  const file = join(workspace, normalize(exportPath));
  const st = await fsp.stat(file).catch(() => null);
  const before = st === null ? '' : await fsp.readFile(file, 'utf8');
  const after = spliceBlock(before, block);
  if (after === before) return false;
  // a new directory is an ordinary workspace one (atomicWrite would make it private)
  if (st === null) await fsp.mkdir(dirname(file), { recursive: true });
  await atomicWrite(file, after, { mode: st === null ? PUBLIC_FILE_MODE : st.mode & 0o777 });
  return true;
}
