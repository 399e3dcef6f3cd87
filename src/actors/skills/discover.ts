// Skills: folders holding a SKILL.md (front matter `name`, `description`) under the user's data root and the
// workspace (`.yagent/skills`, and `.claude/skills` for compatibility). A workspace skill overrides a user one.
// A skill never leaves its root: a folder whose real path is outside the root's is no skill (issue 22: a folder
// swapped for a link to ~/.ssh), and use_skill checks again at every read (`skill-read.ts`).
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isInside } from '../tools/path-resolve.js';

export interface Skill {
  name: string;
  description: string;
  dir: string;
  file: string;
  /** The real path of the root the skill was found under, resolved at discovery. */
  realRoot: string;
}

/** The real path of `dir` when it is a folder strictly below `realRoot`; null otherwise (or when it is gone). */
export function realSkillDir(dir: string, realRoot: string): string | null {
  try {
    const real = realpathSync.native(dir);
    return real !== realRoot && isInside(realRoot, real) && statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

const MAX_SKILL_BYTES = 256 * 1024;
const MAX_LISTED_FILES = 50;

/** Where skills are looked for, lowest precedence first. */
export function skillRoots(dataRoot: string, workspace: string): string[] {
  return [join(dataRoot, 'skills'), join(workspace, '.claude', 'skills'), join(workspace, '.yagent', 'skills')];
}

/** `---\nkey: value\n---` front matter (one-line values, optional quotes) and the body after it. */
export function parseSkillFile(text: string): { meta: Record<string, string>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { meta: {}, body: text };
  const meta: Record<string, string> = {};
  for (const line of (m[1] ?? '').split(/\r?\n/)) {
    const kv = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (kv?.[1] !== undefined) meta[kv[1]] = (kv[2] ?? '').trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  return { meta, body: text.slice(m[0].length) };
}

/** Every valid skill by name; folders without SKILL.md, a name or a description are skipped. */
export function discoverSkills(roots: readonly string[]): Map<string, Skill> {
  const out = new Map<string, Skill>();
  for (const root of roots) {
    if (!existsSync(root)) continue;
    let entries: string[];
    let realRoot: string;
    try {
      realRoot = realpathSync.native(root);
      entries = readdirSync(realRoot).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      const dir = realSkillDir(join(realRoot, entry), realRoot);
      if (dir === null) continue;
      const file = join(dir, 'SKILL.md');
      try {
        if (!statSync(file).isFile() || statSync(file).size > MAX_SKILL_BYTES) continue;
        const { meta } = parseSkillFile(readFileSync(file, 'utf8'));
        const name = meta['name'] ?? entry;
        const description = meta['description'] ?? '';
        if (name === '' || description === '') continue;
        out.set(name, { name, description, dir, file, realRoot });
      } catch {
        continue;
      }
    }
  }
  return out;
}

/** Regular files of a skill's real folder other than SKILL.md (relative paths, bounded), for the agent to read on
 *  demand. Links below it are neither listed nor followed. */
export function skillFiles(skill: Skill, realDir: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= MAX_LISTED_FILES) return;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && relative(realDir, p) !== 'SKILL.md') files.push(relative(realDir, p));
    }
  };
  walk(realDir);
  return files;
}

/** The catalogue lines that go into an agent's system prompt. */
export function skillsSection(skills: ReadonlyMap<string, Skill>): string {
  if (skills.size === 0) return '';
  const lines = [...skills.values()].map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ')}`);
  return ['## Skills', '', 'Know-how the user installed. When a task matches one, call `use_skill` with its name first and follow what it says.', '', ...lines].join('\n');
}
