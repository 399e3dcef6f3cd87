// use_skill: returns a skill's SKILL.md body and lists its other files (absolute paths to read with the normal tools).
import { join } from 'node:path';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok } from '../tools/define.js';
import { DESCRIPTIONS_DIR, loadDescription } from '../tools/describe.js';
import type { ToolDeclaration } from '../tools/types.js';
import { READ_HARD_LIMIT_BYTES, SYNC_READ_MAX_BYTES } from '../tools/limits.js';
import { readRegularFile } from '../tools/regular-file.js';
import type { ToolOutcome } from '../tools/types.js';
import { parseSkillFile, realSkillDir, skillFiles, type Skill } from './discover.js';

/** A file of the skill's real folder, read only if what was opened is a regular file still inside that folder. */
async function readSkillFile(skill: Skill, realDir: string, rel: string, signal: AbortSignal): Promise<string | ToolOutcome> {
  const r = await readRegularFile(join(realDir, rel), { maxBytes: READ_HARD_LIMIT_BYTES, syncMaxBytes: SYNC_READ_MAX_BYTES, signal, inside: realDir });
  if (r.kind === 'ok') return r.buf.toString('utf8');
  if (r.kind === 'outside') return fail('skill_escapes', `${skill.name}/${rel} leads to ${r.real}, outside the skill's folder: not read.`);
  if (r.kind === 'too_large') return fail('too_large', `${skill.name}/${rel} is over the 10 MB limit.`);
  return fail('unknown_skill_file', `${skill.name}/${rel} is not a regular file of the skill (${r.kind === 'not_regular' ? r.what : r.kind.replace('_', ' ')}).`);
}

/** Beside this module in the package's source tree (read from src/ also when running dist/). */
const DESCRIPTION_DIR = join(DESCRIPTIONS_DIR, '..', 'skills');

export function useSkillTool(skills: ReadonlyMap<string, Skill>): ToolDeclaration {
  const names = [...skills.keys()];
  return defineTool({
    name: 'use_skill',
    description: loadDescription('use_skill', DESCRIPTION_DIR),
    schema: z.object({
      name: z.string().min(1).describe(`Skill name: one of ${names.join(', ')}.`),
      file: z.string().optional().describe('A file of the skill (relative path from its listing) to read instead of SKILL.md.'),
    }),
    tags: { effect: 'read', mutates: false, serial: false, needsAuth: false, pathParams: [], truncation: 'head_tail', display: 'text', brief: (a) => briefArg(a, 'name') },
    async execute(args, ctx) {
      const skill = skills.get(args.name);
      if (!skill) return fail('unknown_skill', `There is no skill "${args.name}". Available: ${names.join(', ')}.`);
      // resolved again at every call: a step may have swapped the folder for a link since the run started
      const realDir = realSkillDir(skill.dir, skill.realRoot);
      if (realDir === null) return fail('skill_escapes', `The folder of skill ${skill.name} is gone or now leads outside ${skill.realRoot}: not read.`);
      const files = skillFiles(skill, realDir);
      if (args.file !== undefined) {
        // only a file the listing names: a skill folder is not a way around the workspace boundary
        if (!files.includes(args.file)) return fail('unknown_skill_file', `"${args.file}" is not a file of skill ${skill.name}. Files: ${files.join(', ') || '(none)'}.`);
        const text = await readSkillFile(skill, realDir, args.file, ctx.signal);
        return typeof text === 'string' ? ok(text, `${skill.name}/${args.file}`) : text;
      }
      const text = await readSkillFile(skill, realDir, 'SKILL.md', ctx.signal);
      if (typeof text !== 'string') return text;
      const { body } = parseSkillFile(text);
      const listing = files.length > 0 ? `\n\nFiles of this skill (read one with use_skill {"name": "${skill.name}", "file": "<path>"}):\n${files.map((f) => `- ${f}`).join('\n')}` : '';
      return ok(`# Skill: ${skill.name}\n(folder ${skill.dir})\n\n${body.trim()}${listing}`, skill.name);
    },
  }) as unknown as ToolDeclaration;
}
