import { describe, expect, it } from 'vitest';
import { validateDesign, META_MAX_ATTEMPTS } from '../../src/actors/agents/meta.js';
import { makeHarness, ScriptedModel, exitCall, THOUGHT } from './harness.js';

const design = { name: 'license_auditor', description: 'Checks license headers.', system_prompt: 'Read each source file header and list files without a license line.', tools: ['read_file', 'grep'] };

describe('Meta agent', () => {
  it('validates the design: schema, names, tools from the palette only', () => {
    const allowed = new Set(['read_file', 'grep']);
    expect(validateDesign(JSON.stringify(design), allowed)).toMatchObject({ ok: true });
    expect(validateDesign('```json\n' + JSON.stringify(design) + '\n```', allowed)).toMatchObject({ ok: true });
    expect(validateDesign(JSON.stringify({ ...design, name: 'Bad Name' }), allowed)).toMatchObject({ ok: false });
    expect(validateDesign(JSON.stringify({ ...design, name: 'coding' }), allowed)).toMatchObject({ ok: false });
    expect(validateDesign(JSON.stringify({ ...design, tools: ['run_bash'] }), allowed)).toMatchObject({ ok: false, error: expect.stringContaining('run_bash') as string });
    expect(validateDesign('not json', allowed)).toMatchObject({ ok: false });
  });

  it('designs a custom agent (after an invalid try), registers delegate_<name> for the rest of the task and runs it at once with 15 steps', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [
        { text: THOUGHT, calls: [{ name: 'delegate_meta', args: { task: 'audit license headers' } }] },
        (req) => ({ text: THOUGHT, calls: [{ name: 'delegate_license_auditor', args: { task: `again; tools offered: ${req.tools.some((t) => t.name === 'delegate_license_auditor')}` } }] }),
        { text: 'all audited' },
      ],
      meta: [{ text: '{"name": "x"}' }, { text: JSON.stringify(design) }],
      license_auditor: [
        (req) => exitCall(`first run; my tools: ${req.tools.map((t) => t.name).sort().join(',')}`),
        (req) => exitCall(`second run: ${req.messages.find((m) => m.role === 'user')?.content.includes('tools offered: true') ?? false}`),
      ],
    });
    const out = await h.run(model, 'audit');
    expect(out.text).toBe('all audited');
    const metaResult = model.byAgent('director')[1].messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
    expect(metaResult).toContain('delegate_license_auditor');
    expect(metaResult).toContain('first run; my tools: agent_exit,grep,read_file');
    expect(model.byAgent('meta')).toHaveLength(2);
    const notes = await h.store.listNotes(h.settings.boardId);
    expect(notes.map((n) => n.agent).sort()).toEqual(['license_auditor', 'license_auditor', 'meta']);
    const second = notes.find((n) => n.handoff.conclusion.startsWith('second run'));
    expect(second?.handoff.conclusion).toBe('second run: true');
    const sys = model.byAgent('license_auditor')[0].messages[0].content;
    expect(sys).toContain('at most 15 steps');
  });

  it(`gives up after ${META_MAX_ATTEMPTS} invalid designs with an error note`, async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [{ text: THOUGHT, calls: [{ name: 'delegate_meta', args: { task: 'x' } }] }, { text: 'gave up' }],
      meta: Array.from({ length: 6 }, () => ({ text: 'nope' })),
    });
    await h.run(model, 'x');
    expect(model.byAgent('meta')).toHaveLength(META_MAX_ATTEMPTS);
    const [note] = await h.store.listNotes(h.settings.boardId);
    expect(note.handoff.status).toBe('error');
  });
});
