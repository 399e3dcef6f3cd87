// Loads the `<name>.md` description a tool's model-facing text lives in, from the package source tree.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Walks up from this module (src/ under vitest, dist/src/ when compiled) to the directory with package.json. */
function findPackageRoot(from: string): string {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`tools: no package.json above ${from}`);
    dir = up;
  }
}

export const DESCRIPTIONS_DIR = join(findPackageRoot(fileURLToPath(import.meta.url)), 'src', 'actors', 'tools');

/** '' when missing: the registry validation reports it instead of the import crashing. */
export function loadDescription(name: string, dir: string = DESCRIPTIONS_DIR): string {
  const file = join(dir, `${name}.md`);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
}

/** Names of every description file present: the declared side of the two-way registry check. */
export function listDescriptionNames(dir: string = DESCRIPTIONS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'AGENTS.md')
    .map((f) => f.slice(0, -3))
    .sort();
}
