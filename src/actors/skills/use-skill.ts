// use_skill: returns a skill's SKILL.md body and lists its other files (absolute paths to read with the normal tools).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok } from '../tools/define.js';
import { DESCRIPTIONS_DIR, loadDescription } from '../tools/describe.js';
import type { ToolDeclaration } from '../tools/types.js';
import { parseSkillFile, skillFiles, type Skill } from './discover.js';

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
    execute(args) {
      const skill = skills.get(args.name);
      if (!skill) return Promise.resolve(fail('unknown_skill', `There is no skill "${args.name}". Available: ${names.join(', ')}.`));
      const files = skillFiles(skill);
      if (args.file !== undefined) {
        // only a file the listing names: a skill folder is not a way around the workspace boundary
        if (!files.includes(args.file)) return Promise.resolve(fail('unknown_skill_file', `"${args.file}" is not a file of skill ${skill.name}. Files: ${files.join(', ') || '(none)'}.`));
        return Promise.resolve(ok(readFileSync(join(skill.dir, args.file), 'utf8'), `${skill.name}/${args.file}`));
      }
      const { body } = parseSkillFile(readFileSync(skill.file, 'utf8'));
      const listing = files.length > 0 ? `\n\nFiles of this skill (read one with use_skill {"name": "${skill.name}", "file": "<path>"}):\n${files.map((f) => `- ${f}`).join('\n')}` : '';
      return Promise.resolve(ok(`# Skill: ${skill.name}\n(folder ${skill.dir})\n\n${body.trim()}${listing}`, skill.name));
    },
  }) as unknown as ToolDeclaration;
}
