// `[blueprint] export_path`: the one rule for a usable value, shared by the config loader (a bad value stops the load
// with this reason) and the blueprint's writer (src/actors/blueprint/export.ts).
import { isAbsolute, normalize } from 'node:path';

/** Why `p` cannot be an export path (null: it can; '' is off): a relative Markdown file inside the workspace. */
export function exportPathProblem(p: string): string | null {
  if (p === '') return null;
  if (isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p)) return 'must be relative to the workspace root, not absolute';
  const n = normalize(p);
  if (n === '..' || n.startsWith('../') || n.startsWith('..\\')) return 'must stay inside the workspace (no leading ..)';
  if (p.endsWith('/') || p.endsWith('\\')) return 'names a directory; name a Markdown file such as "docs/BLUEPRINT.md"';
  if (!/\.(?:md|markdown)$/i.test(n)) return 'must name a Markdown file (.md): the block is fenced by Markdown comments';
  if (n.split(/[\\/]/).includes('.git')) return 'must not point into .git';
  return null;
}
