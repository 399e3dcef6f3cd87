import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assembleSystemPrompt, AUTONOMY_INSTRUCTION } from '../../src/actors/agents/prompts.js';
import { AGENT_FLAGS, FLAG_KEYS, flagsFor } from '../../src/actors/agents/profiles.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const CONTEXT = '<!-- AGENTS.md -->\n# Fixture project\n\nRun `npm test` before you finish.';

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, `${name}.system.md`);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(existsSync(path), `missing golden ${path}: review and run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual, `assembled prompt of ${name} drifted from ${path}; review and rerun with UPDATE_GOLDEN=1`).toBe(readFileSync(path, 'utf8'));
}

describe('assembled system prompts are pinned by golden files', () => {
  for (const agent of ['director', 'coding', 'repo', 'chat', 'devops', 'browser', 'meta']) {
    it(`${agent} system prompt matches its golden`, () => {
      golden(agent, assembleSystemPrompt({ agent, projectContext: CONTEXT, fullYolo: false, lang: 'English' }));
    });
  }
  it('custom agent prompt (template filled) matches its golden', () => {
    golden(
      'custom',
      assembleSystemPrompt({
        agent: 'custom',
        projectContext: CONTEXT,
        fullYolo: false,
        lang: 'English',
        maxSteps: 15,
        custom: { name: 'license_auditor', description: 'Checks license headers.', instructions: 'Read every source file header and list the ones without a license line.' },
      }),
    );
  });
  it('director with -d coding,devops matches its golden', () => {
    golden('director-disabled-coding-devops', assembleSystemPrompt({ agent: 'director', projectContext: '', fullYolo: false, lang: 'English', disabledAgents: ['coding', 'devops'] }));
  });
  it('director under -Y in Chinese matches its golden', () => {
    golden('director-full-yolo-chinese', assembleSystemPrompt({ agent: 'director', projectContext: CONTEXT, fullYolo: true, lang: 'Chinese' }));
  });
});

describe('prompt assembly rules', () => {
  it('-Y adds the autonomous-decision instruction, and only -Y', () => {
    const on = assembleSystemPrompt({ agent: 'coding', projectContext: '', fullYolo: true, lang: 'English' });
    const off = assembleSystemPrompt({ agent: 'coding', projectContext: '', fullYolo: false, lang: 'English' });
    expect(on).toContain(AUTONOMY_INSTRUCTION);
    expect(off).not.toContain(AUTONOMY_INSTRUCTION);
  });
  it('the language instruction names the configured language', () => {
    expect(assembleSystemPrompt({ agent: 'repo', projectContext: '', fullYolo: false, lang: 'Chinese' })).toContain('in Chinese');
  });
  it('project context is included verbatim', () => {
    expect(assembleSystemPrompt({ agent: 'chat', projectContext: CONTEXT, fullYolo: false, lang: 'English' })).toContain(CONTEXT);
  });
  it('the director prompt carries the §10 rules', () => {
    const p = assembleSystemPrompt({ agent: 'director', projectContext: '', fullYolo: false, lang: 'English' });
    for (const rule of ['No hallucination', 'Coding is separate', 'One step at a time', 'Delegation is mandatory', 'No long-running processes', 'Parallel read-only work', 'Thought before action']) {
      expect(p).toContain(rule);
    }
  });
  it('every sub-agent prompt states its agent_exit output contract', () => {
    for (const agent of ['coding', 'repo', 'chat', 'devops', 'browser']) {
      const p = assembleSystemPrompt({ agent, projectContext: '', fullYolo: false, lang: 'English' });
      expect(p, agent).toContain('## Output contract');
      expect(p, agent).toContain('agent_exit');
    }
  });
});

describe('the <thought> contract (seeds §10: Director, Coding and Browser enforce it)', () => {
  it('exactly the agents whose loop requires a thought block explain it in their prompt', () => {
    const requiring = Object.entries(AGENT_FLAGS).filter(([, f]) => f.requireThought).map(([a]) => a).sort();
    expect(requiring).toEqual(['browser', 'coding', 'director']);
    for (const agent of requiring) expect(assembleSystemPrompt({ agent, projectContext: '', fullYolo: false, lang: 'English' }), agent).toContain('## The `<thought>` block');
  });
});

describe('every agent states all of its loop flags (pitfall 16)', () => {
  it('no agent leaves a flag to a central default', () => {
    for (const [agent, flags] of Object.entries(AGENT_FLAGS)) {
      for (const k of FLAG_KEYS) expect(flags[k], `${agent}.${k}`).toBeDefined();
      expect(Object.keys(flags).sort(), agent).toEqual([...FLAG_KEYS].sort());
    }
  });
  it('config step_retries replaces every agent\'s own stepRetries (0 included); absent keeps each agent\'s value', () => {
    for (const agent of [...Object.keys(AGENT_FLAGS), 'license_auditor']) {
      expect(flagsFor(agent, { stepRetries: 0 }).stepRetries, agent).toBe(0);
      expect(flagsFor(agent, { stepRetries: 5 }).stepRetries, agent).toBe(5);
    }
    expect(flagsFor('coding').stepRetries).toBe(AGENT_FLAGS.coding.stepRetries);
  });
  it('config max_steps overrides the agent default; custom agents always get 15', () => {
    expect(flagsFor('coding', { maxSteps: { coding: 7 } }).maxSteps).toBe(7);
    expect(flagsFor('coding').maxSteps).toBe(150);
    expect(flagsFor('license_auditor', { maxSteps: { license_auditor: 99 } }).maxSteps).toBe(15);
    expect(flagsFor('director', { maxParallelReadOnlyTools: 20 }).maxParallelReadOnlyTools).toBe(8);
  });
});
