// Which names the code index covers, shared by its listing (files.ts) and the no-index presence check (presence.ts),
// which must agree: presence may say "no code" only where the listing would be empty.
import { langOf } from './queries.js';

/** Directories never indexed, whatever the ignore files say (dependencies, VCS, build output, caches). */
export const NEVER_INDEXED = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'vendor', '__pycache__', '.venv', 'venv', '.next', 'coverage', '.cache']);

/** A file name or path with a grammar; minified bundles carry no declarations worth a search. */
export function hasIndexedExtension(name: string): boolean {
  return langOf(name) !== null && !/\.min\.[cm]?js$/.test(name);
}
