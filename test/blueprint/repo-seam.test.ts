// The Repo completion seam through the production agent env (in-process harness): agent_exit's blueprint[] is folded
// into the stored prose, and the fold's account reaches the event stream and the note, never the conclusion (pitfall 43).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { makeHarness, ScriptedModel, THOUGHT, toolMessages } from '../agents/harness.js';

it('FoldAccountReachesEventAndNoteNeverConclusion: a Repo run keeps its checked entries; the account is in the note and the events only', async () => {
  const h = makeHarness();
  writeFileSync(join(h.workspace, 'package.json'), '{"name":"seam"}\n');
  const deliverable = 'hello.txt greets the world.';
  const model = new ScriptedModel({
    director: [{ calls: [{ name: 'delegate_repo', args: { task: 'map it', context_refs: [] } }] }, { text: 'done' }],
    repo: [{ text: THOUGHT, calls: [{ name: 'agent_exit', args: { conclusion: deliverable, status: 'ok', facts: [], artifacts: [], blueprint: ['hello.txt holds the greeting', 'the parser is src/nowhere.ts'] } }] }],
  });
  await h.run(model, 'map the repo');
  const [note] = await h.store.listNotes(h.settings.boardId);
  const body = (await h.store.readNote(h.settings.boardId, note?.ref ?? ''))?.body ?? '';
  expect(body).toMatch(/^hello\.txt greets the world\.\n\n---\nblueprint: 1 of 2 entries kept, revision 1\n {2}dropped "the parser is src\/nowhere\.ts": no such path: src\/nowhere\.ts\n$/);
  expect(note?.handoff.conclusion).toBe(deliverable);
  const toDirector = toolMessages(model.byAgent('director')[1]).join('\n');
  expect(toDirector).toContain(deliverable);
  expect(toDirector).not.toContain('blueprint:');
  expect(h.events.some((e) => e.type === 'log' && /repo: blueprint: 1 of 2 entries kept/.test(e.message))).toBe(true);
  const stored = readFileSync(join(h.root, 'home', 'data', 'blueprint', h.settings.projectId, 'blueprint.md'), 'utf8');
  expect(stored).toMatch(/^- hello\.txt holds the greeting <!-- anchors hello\.txt=[0-9a-f]{12} -->$/m);
  expect(stored).not.toContain('nowhere');
});

it('OnlyTheRepoSeamFolds (seeds §6.4): a Coding run\'s agent_exit blueprint[] writes nothing and its note carries no account', async () => {
  const h = makeHarness();
  writeFileSync(join(h.workspace, 'package.json'), '{"name":"seam"}\n');
  const model = new ScriptedModel({
    director: [{ calls: [{ name: 'delegate_coding', args: { task: 'write it', context_refs: [] } }] }, { text: 'done' }],
    coding: [{ text: THOUGHT, calls: [{ name: 'agent_exit', args: { conclusion: 'written', status: 'ok', facts: [], artifacts: [], blueprint: ['package.json names the package'] } }] }],
  });
  await h.run(model, 'write the file');
  const [note] = await h.store.listNotes(h.settings.boardId);
  expect(note?.handoff.conclusion).toBe('written');
  expect((await h.store.readNote(h.settings.boardId, note?.ref ?? ''))?.body ?? '').not.toContain('blueprint:');
  expect(h.events.some((e) => e.type === 'log' && /blueprint:/.test(e.message))).toBe(false);
  expect(existsSync(join(h.root, 'home', 'data', 'blueprint'))).toBe(false);
});
