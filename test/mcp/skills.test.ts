// Skills: discovery and precedence on real folders, and an E2E where a workspace skill is listed, loaded with
// use_skill, and its body reaches the model (real workers, only the model scripted).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverSkills, parseSkillFile, skillRoots } from '../../src/actors/skills/discover.js';
import { GOOD_CONFIG, runCli, sandbox, withScript, type Sandbox } from '../cli/helpers.js';
import { PRELUDE } from '../cli/scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

function skill(root: string, folder: string, name: string, description: string, body: string): void {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, 'SKILL.md'), `---\nname: ${name}\ndescription: "${description}"\n---\n${body}`);
}

describe('skills', () => {
  it('front matter gives name and description; the body follows', () => {
    expect(parseSkillFile('---\nname: x\ndescription: "does y"\n---\nBody\n')).toEqual({ meta: { name: 'x', description: 'does y' }, body: 'Body\n' });
  });

  it('user, .claude and .yagent skills are found; a workspace skill overrides a user one; incomplete folders are skipped', () => {
    sb = sandbox();
    const ws = join(sb.dir, 'ws');
    skill(join(sb.home, 'skills'), 'release', 'release', 'user release steps', 'USER BODY');
    skill(join(sb.home, 'skills'), 'lint', 'lint', 'run the linter', 'LINT');
    skill(join(ws, '.yagent', 'skills'), 'rel', 'release', 'project release steps', 'PROJECT BODY');
    skill(join(ws, '.claude', 'skills'), 'doc', 'docs', 'write docs', 'DOCS');
    mkdirSync(join(ws, '.yagent', 'skills', 'empty'), { recursive: true });
    const found = discoverSkills(skillRoots(sb.home, ws));
    expect([...found.keys()].sort()).toEqual(['docs', 'lint', 'release']);
    expect(found.get('release')?.description).toBe('project release steps');
  });

  it('a skill folder that is a link leading out of its root is no skill; a linked skills root itself is fine', () => {
    sb = sandbox();
    const ws = join(sb.dir, 'ws');
    skill(join(sb.dir, 'elsewhere'), 'far', 'far', 'outside the root', 'OUTSIDE');
    skill(join(sb.dir, 'shared'), 'common', 'common', 'a shared skills folder', 'SHARED');
    skill(join(ws, '.yagent', 'skills'), 'ok', 'ok', 'inside', 'INSIDE');
    symlinkSync(join(sb.dir, 'elsewhere', 'far'), join(ws, '.yagent', 'skills', 'far'));
    mkdirSync(join(ws, '.claude'), { recursive: true });
    symlinkSync(join(sb.dir, 'shared'), join(ws, '.claude', 'skills'));
    const found = discoverSkills(skillRoots(sb.home, ws));
    expect([...found.keys()].sort()).toEqual(['common', 'ok']);
    expect(found.get('common')?.realRoot).toBe(join(sb.dir, 'shared'));
  });

  it('E2E: a workspace skill is listed, loaded with use_skill, and its body reaches the model', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    skill(join(ws, '.yagent', 'skills'), 'changelog', 'changelog', 'how this project writes changelog entries', 'Always write CHANGELOG entries in the imperative mood, marker ZEBRA-42.');
    writeFileSync(join(ws, '.yagent', 'skills', 'changelog', 'template.md'), '## template\n');
    const script = `${PRELUDE}
const all = (req) => JSON.stringify(req.body.messages || []);
const system = (req) => { const m = (req.body.messages || [])[0]; return typeof m?.content === 'string' ? m.content : ''; };
export default {
  director: [call('delegate_coding', { task: 'add a changelog entry', context_refs: [] }), ...times(6, (req) => say(all(req).includes('skill says ZEBRA-42') ? 'SKILL OK' : 'SKILL MISSING'))],
  coding: [
    (req) => system(req).includes('changelog: how this project writes changelog entries') ? call('use_skill', { name: 'changelog' }) : say('no skills section'),
    (req) => all(req).includes('ZEBRA-42') && all(req).includes('template.md') ? call('use_skill', { name: 'changelog', file: 'template.md' }) : say('no skill body'),
    (req) => call('agent_exit', { conclusion: all(req).includes('## template') ? 'skill says ZEBRA-42' : 'no skill file', facts: [], artifacts: [], status: 'ok' }),
    ...times(3, say('done')),
  ],
};
`;
    const r = await runCli(['-p', 'changelog please', '--output-format', 'json'], withScript(sb, script), { cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'SKILL OK' });
  });

  it('YAGENT_SKILLS=0 turns skills off: no catalogue, no use_skill', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    skill(join(ws, '.yagent', 'skills'), 'changelog', 'changelog', 'how this project writes changelog entries', 'ZEBRA-42');
    const script = `${PRELUDE}
const system = (req) => { const m = (req.body.messages || [])[0]; return typeof m?.content === 'string' ? m.content : ''; };
const hasTool = (req) => (req.body.tools || []).some((t) => (t.function?.name ?? t.name) === 'use_skill');
export default { director: times(6, (req) => say(system(req).includes('## Skills') || hasTool(req) ? 'SKILLS ON' : 'SKILLS OFF')) };
`;
    const r = await runCli(['-p', 'x', '--output-format', 'json'], { ...withScript(sb, script), YAGENT_SKILLS: '0' }, { cwd: ws });
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'SKILLS OFF' });
    const on = await runCli(['-p', 'x', '--output-format', 'json'], withScript(sb, script), { cwd: ws });
    expect(JSON.parse(on.stdout)).toMatchObject({ result: 'SKILLS ON' });
  });

  it('[skills] agents decides who gets the catalogue and use_skill; [skills] enable = false gives nobody either', async () => {
    const ws = (box: Sandbox): string => {
      const dir = join(box.dir, 'ws');
      skill(join(dir, '.yagent', 'skills'), 'changelog', 'changelog', 'how this project writes changelog entries', 'ZEBRA-42');
      return dir;
    };
    const script = `${PRELUDE}
const all = (req) => JSON.stringify(req.body.messages || []);
const system = (req) => { const m = (req.body.messages || [])[0]; return typeof m?.content === 'string' ? m.content : ''; };
const has = (req) => system(req).includes('## Skills') || (req.body.tools || []).some((t) => (t.function?.name ?? t.name) === 'use_skill');
export default {
  director: [
    (req) => has(req) ? say('DIRECTOR HAS SKILLS') : call('delegate_coding', { task: 'look', context_refs: [] }),
    ...times(6, (req) => say(all(req).includes('CODING HAS SKILLS') ? 'CODING YES' : all(req).includes('CODING HAS NONE') ? 'CODING NO' : 'NO ANSWER')),
  ],
  coding: [(req) => call('agent_exit', { conclusion: has(req) ? 'CODING HAS SKILLS' : 'CODING HAS NONE', facts: [], artifacts: [], status: 'ok' }), ...times(3, say('done'))],
};
`;
    sb = sandbox(`${GOOD_CONFIG}\n[skills]\nagents = ["coding"]\n`);
    const only = await runCli(['-p', 'x', '--output-format', 'json'], withScript(sb, script), { cwd: ws(sb) });
    expect(JSON.parse(only.stdout)).toMatchObject({ result: 'CODING YES' });
    sb.cleanup();
    sb = sandbox(`${GOOD_CONFIG}\n[skills]\nenable = false\n`);
    const off = await runCli(['-p', 'x', '--output-format', 'json'], withScript(sb, script), { cwd: ws(sb) });
    expect(JSON.parse(off.stdout)).toMatchObject({ result: 'CODING NO' });
  });
});
