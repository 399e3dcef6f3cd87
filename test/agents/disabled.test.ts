// -d/--disable-agents: disabled sub-agents vanish from surfaces and prompts, and a call to one is refused clearly.
import { describe, expect, it } from 'vitest';
import { assembleSystemPrompt } from '../../src/actors/agents/prompts.js';
import { resolveDisabledAgents } from '../../src/actors/agents/profiles.js';
import { UNDELEGATED_REMINDER } from '../../src/actors/agents/run-agent.js';
import { makeHarness, ScriptedModel, THOUGHT, toolMessages } from './harness.js';

const prompt = (agent: string, disabledAgents: string[]): string => assembleSystemPrompt({ agent, projectContext: '', fullYolo: false, lang: 'English', disabledAgents });

describe('disabled agents (-d)', () => {
  it('-d takes names, comma lists and all; unknown names are refused', () => {
    expect(resolveDisabledAgents(['coding, devops'])).toEqual(['coding', 'devops']);
    expect(resolveDisabledAgents(['all'])).toEqual(['repo', 'coding', 'chat', 'devops', 'browser', 'meta']);
    expect(resolveDisabledAgents(['browser'])).toEqual(['browser']);
    expect(resolveDisabledAgents([])).toEqual([]);
    expect(() => resolveDisabledAgents(['coder'])).toThrow(/unknown agent "coder"/);
    expect(() => resolveDisabledAgents(['director'])).toThrow(/unknown agent/);
  });

  it('the Director prompt does not advertise a disabled agent, says it is disabled, and keeps its rules', () => {
    const p = prompt('director', ['coding', 'meta']);
    expect(p).not.toContain('delegate_coding');
    expect(p).not.toContain('delegate_meta');
    expect(p).toContain('`delegate_repo`');
    expect(p).toContain('## Agents disabled for this run');
    expect(p).toContain('disabled these agents for this run: Coding, Meta');
    for (const rule of ['No hallucination', 'Coding is separate', 'Delegation is mandatory', 'Thought before action']) expect(p).toContain(rule);
    expect(prompt('director', [])).not.toContain('Agents disabled');
    const all = prompt('director', ['all'].flatMap((a) => resolveDisabledAgents([a])));
    expect(all).not.toMatch(/delegate_(repo|coding|chat|devops|browser|meta)/);
    expect(all).not.toContain('## Your team');
    // -d browser drops its whole team entry (continuation lines included) and names it
    const noBrowser = prompt('director', ['browser']);
    expect(noBrowser).not.toContain('delegate_browser');
    expect(noBrowser).not.toContain('start no server for it');
    expect(noBrowser).toContain('disabled these agents for this run: Browser');
  });

  it('Repo\'s prompt drops delegate_devops when DevOps is disabled, and nothing else', () => {
    const p = prompt('repo', ['devops']);
    expect(p).not.toContain('delegate_devops');
    expect(p).toContain('You cannot modify anything');
    expect(prompt('repo', ['coding'])).toBe(prompt('repo', []));
  });

  it('a run where the Director calls a disabled delegate gets a clear error result, and no child runs', async () => {
    const h = makeHarness({ disabledAgents: ['coding'] });
    const model = new ScriptedModel({
      director: [{ text: THOUGHT, calls: [{ name: 'delegate_coding', args: { task: 'write the file' } }] }, { text: 'Coding is disabled; nothing was changed.' }],
      coding: [{ text: 'must never run' }],
    });
    const out = await h.run(model, 'change hello.txt');
    expect(out.stopReason).toBe('plain_text');
    const [first, second] = model.byAgent('director');
    expect(first.tools.map((t) => t.name)).not.toContain('delegate_coding');
    expect(first.tools.map((t) => t.name)).toContain('delegate_repo');
    expect(first.messages[0].content).not.toContain('delegate_coding');
    const result = toolMessages(second).at(-1) ?? '';
    expect(result).toContain('tool_disabled');
    expect(result).toContain('coding agent is disabled for this run');
    expect(model.byAgent('coding')).toHaveLength(0);
    expect(await h.store.listNotes(h.settings.boardId)).toHaveLength(0);
  });

  it('with every agent disabled the Director answers at once: no un-delegated reminder it could not follow', async () => {
    const h = makeHarness({ disabledAgents: ['repo', 'coding', 'chat', 'devops', 'browser', 'meta'] });
    const model = new ScriptedModel({ director: [{ text: 'Answer from what I know.' }, { text: 'never' }] });
    const out = await h.run(model, 'hi');
    expect(out).toMatchObject({ stopReason: 'plain_text', text: 'Answer from what I know.' });
    expect(model.byAgent('director')).toHaveLength(1);
    expect(model.byAgent('director')[0].tools.some((t) => t.name.startsWith('delegate_'))).toBe(false);
  });

  it('the un-delegated reminder names only the delegations that exist', async () => {
    const h = makeHarness({ disabledAgents: ['devops'] });
    const model = new ScriptedModel({ director: [{ text: 'I fixed it.' }, { text: 'b' }] });
    await h.run(model, 'hi');
    const reminder = model.byAgent('director')[1].messages.at(-1)?.content ?? '';
    expect(reminder).toContain('delegate_repo / delegate_coding');
    expect(reminder).not.toContain('delegate_devops');
    expect(UNDELEGATED_REMINDER).toContain('delegate_devops');
  });

  it('a note mentioning a disabled agent does not become a pending mention', async () => {
    const h = makeHarness({ disabledAgents: ['coding'] });
    const model = new ScriptedModel({
      director: [{ text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'audit' } }] }, { text: 'done' }],
      repo: [{ calls: [{ name: 'agent_exit', args: { conclusion: 'Typo in hello.txt. @coding please fix it.', status: 'ok', facts: [], artifacts: [] } }] }],
    });
    await h.run(model, 'go');
    expect(model.byAgent('director')[1].messages.some((m) => m.content.startsWith('[pending mentions]'))).toBe(false);
  });
});
