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
    schema: z.object({ name: z.string().min(1).describe(`Skill name: one of ${names.join(', ')}.`) }),
    tags: { effect: 'read', mutates: false, serial: false, needsAuth: false, pathParams: [], truncation: 'head_tail', display: 'text', brief: (a) => briefArg(a, 'name') },
    execute(args) {
      const skill = skills.get(args.name);
      if (!skill) return Promise.resolve(fail('unknown_skill', `There is no skill "${args.name}". Available: ${names.join(', ')}.`));
      const { body } = parseSkillFile(readFileSync(skill.file, 'utf8'));
      const files = skillFiles(skill);
      const listing = files.length > 0 ? `\n\nFiles of this skill (read them when the instructions say so):\n${files.map((f) => `- ${join(skill.dir, f)}`).join('\n')}` : '';
      return Promise.resolve(ok(`# Skill: ${skill.name}\n(folder ${skill.dir})\n\n${body.trim()}${listing}`, skill.name));
    },
  }) as unknown as ToolDeclaration;
}
