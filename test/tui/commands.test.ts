// Slash commands in the painted TUI (@xterm/headless): /model checks the name against the configured providers,
// /resume's picker shows when, how long and what each session was, and refuses one that cannot continue.
import { afterEach, describe, expect, it } from 'vitest';
import type { PickerSession } from '../../bin/tui/app.js';
import type { ProviderChoice } from '../../bin/host/model-choices.js';
import { quitScripted, scripted, type Scripted } from './scripted-backend.js';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreService } from '../../src/store/service.js';

afterEach(quitScripted);

const statusOf = (s: Scripted): string => s.term.rows().at(-1) ?? '';

const CHOICES: ProviderChoice[] = [
  { name: 'fake', model: 'fake-model', baseUrl: 'http://127.0.0.1:1/v1', refused: null, models: ['fake-model', 'small-model'] },
  { name: 'other', model: 'other-model', baseUrl: 'http://127.0.0.1:2/v1', refused: null, models: ['big-model'] },
  { name: 'ph', model: 'm', baseUrl: 'http://127.0.0.1:3/v1', refused: 'it still has the placeholder api key (REPLACE_WITH_YOUR_API_KEY): set api_key or api_key_env, or run /setup', models: [] },
];
/** Settles the app until the screen shows `text` (real git runs behind /undo: its answer takes more than one turn). */
async function shows(s: Scripted, text: string): Promise<void> {
  // a deadline in time, not in paint steps: under load the real I/O outruns any count of them
  const end = Date.now() + 20_000;
  while (!s.term.screenText().includes(text)) {
    if (Date.now() > end) throw new Error(`timed out waiting for "${text}"; the screen was:\n${s.term.screenText()}`);
    await s.step('');
  }
}

describe('TUI slash commands', () => {
  it('/model NAME refuses a provider the configuration does not have or that cannot work, with the reason; a known one starts the next turn; /model auto routes', async () => {
    const s = await scripted(120, 24, { models: () => Promise.resolve(CHOICES) });
    await s.step('/model nope\r');
    expect(statusOf(s)).toContain('/model: no provider "nope" (configured providers: fake, other, ph)');
    await s.step('/model ph\r');
    expect(statusOf(s)).toContain('/model: provider "ph" cannot be used: it still has the placeholder api key');
    await s.step('hi\r');
    s.end(null);
    await s.step('/model other\r');
    expect(statusOf(s)).toContain('model: other from the next turn');
    await s.step('again\r');
    s.end(null);
    await s.step('/model auto\r');
    await s.step('routed\r');
    expect(s.calls).toEqual(['start: hi', 'start: again provider=other', 'start: routed']);
  });

  it('/model opens a picker of the providers and the models their servers list; Enter on a refused one says why and stays; a pick while a task runs switches it at its next step', async () => {
    const switched: string[] = [];
    const s = await scripted(120, 24, {
      models: () => Promise.resolve(CHOICES),
      switchModel: (id, provider, model) => (switched.push(`${id}: ${provider} ${model ?? ''}`.trim()), Promise.resolve(null)),
    });
    await s.step('/model\r');
    const rows = s.term.screenText();
    expect(rows).toContain('▸ ● auto — routing decides');
    expect(rows).toContain('fake · fake-model (configured)');
    expect(rows).toContain('other · big-model');
    expect(rows).toContain('ph — cannot be used: it still has the placeholder api key');
    expect(rows).toContain('↑↓ select · Enter switches · Esc closes');
    // down to ph (auto, fake, fake·small, other, other·big, ph) and Enter: refused with the reason, still open
    await s.step('\x1b[B\x1b[B\x1b[B\x1b[B\x1b[B');
    expect(s.term.screenText()).toContain('▸   ph — cannot be used');
    await s.step('\r');
    expect(statusOf(s)).toContain('/model: provider "ph" cannot be used: it still has the placeholder api key');
    expect(s.term.screenText()).toContain('Enter switches');
    await s.step('\x1b');
    // a running turn: the pick reaches it at its next step, and the next turns use it too
    await s.step('work\r');
    await s.step('/model\r');
    await s.step('\x1b[B\x1b[B\x1b[B\x1b[B\r');
    expect(switched).toEqual(['t: other big-model']);
    expect(statusOf(s)).toContain("model: other big-model from the running task's next step");
    s.end(null);
    await s.step('next\r');
    expect(s.calls).toEqual(['start: work', 'start: next provider=other model=big-model']);
  });

  it('/resume picks among this workspace\'s sessions (time, turns, last prompt); one that cannot continue is shown, not taken', async () => {
    const at = new Date(2026, 11, 1, 8, 37).getTime();
    const sessions: PickerSession[] = [
      { sessionId: 'task-20261201083700-aaaa', lastPrompt: 'fix the\nbuild', turns: 3, updatedAt: at, resumable: { ok: true } },
      { sessionId: 'task-20261201080000-bbbb', lastPrompt: 'broken one', turns: 1, updatedAt: at, resumable: { ok: false, reason: 'its last turn ended in llm_error' } },
    ];
    const s = await scripted(120, 24, {}, { listSessions: () => Promise.resolve(sessions) });
    await s.step('/resume\r');
    const screen = s.term.screenText();
    expect(screen).toContain('1  12-01 08:37  3 turns  fix the build');
    expect(screen).toContain('2  12-01 08:37  1 turn  broken one (cannot continue: its last turn');
    await s.step('2');
    expect(statusOf(s)).toContain('session task-20261201080000-bbbb cannot continue');
    expect(s.app.session).toBeNull();
    await s.step('/resume\r');
    await s.step('1');
    expect(s.app.session).toBe('task-20261201083700-aaaa');
    await s.step('next\r');
    expect(s.calls).toEqual(['start: next session=task-20261201083700-aaaa']);
  });

  it('/setup while attached says in one line why it cannot reconfigure the supervisor and what to do, even while a task runs', async () => {
    const s = await scripted(200, 24, { supervisor: { pid: 4242, address: 'http://127.0.0.1:1' } });
    await s.step('go\r'); // a running turn: the answer is the same
    await s.step('/setup\r');
    // the dialog's body, its wrapped rows joined: one sentence
    const body = s.term.screenText().split('\n').map((l) => /│ (.*?) +│/.exec(l)?.[1] ?? '').filter((t) => t !== '').join(' ');
    expect(body).toContain('/setup cannot reconfigure an attached supervisor: yagent serve (pid 4242) runs every client\'s tasks on the config it loaded at start; run `yagent setup` in a terminal, then restart `yagent serve` and attach again.');
    await s.step('x'); // any key closes the dialog
    expect(s.term.screenText()).not.toContain('/setup cannot');
  });

  it('/resume with no sessions says so; an unknown command says so', async () => {
    const s = await scripted(80, 24, {}, { listSessions: () => Promise.resolve([]) });
    await s.step('/resume\r');
    expect(s.term.screenText()).toContain('(no sessions in this workspace yet)');
    await s.step('x'); // any key closes the dialog
    await s.step('/foo\r');
    expect(statusOf(s)).toContain('unknown command /foo (/help lists them)');
  });

  it('/timeline lists the task\'s timeline one readable line per entry, newest first', async () => {
    const at = new Date(2026, 11, 1, 9, 19, 45).toISOString();
    const entries = [{ ts: at, type: 'note', agent: 'repo', ref: 'repo/n1', status: 'ok', conclusion: 'looked' }, { ts: at, type: 'delegation', agent: 'repo', callId: 'p11', phase: 'start' }];
    const s = await scripted(120, 24, { timeline: () => Promise.resolve(entries) });
    await s.step('/timeline\r');
    expect(s.term.screenText()).toContain('(no task yet)');
    await s.step('x');
    await s.step('go\r');
    await s.step('/timeline\r');
    const screen = s.term.screenText();
    expect(screen).toContain('─ timeline t (newest first) ─');
    expect(screen).toContain('│ 09:19:45  note      repo wrote repo/n1 (ok): looked');
    expect(screen).toContain('│ 09:19:45  delegate  repo started (call p11)');
  });

  it('/undo lists the workspace\'s undo points (the real store and git); a digit undoes one and says what it restored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-tui-undo-'));
    try {
      const ws = join(dir, 'ws');
      mkdirSync(ws);
      writeFileSync(join(ws, 'b.txt'), 'before\n');
      const store = new StoreService({ root: join(dir, 'home'), notesRoot: join(dir, 'notes') });
      const p = (await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 't', label: 'edit b' }))!;
      writeFileSync(join(ws, 'b.txt'), 'after\n');
      writeFileSync(join(ws, 'a.txt'), 'new\n');
      await store.undoEnd(ws, p.id);
      const s = await scripted(140, 24, { undoList: () => store.undoList(ws), undoRestore: (_t, id) => store.undoRestore(ws, id) });
      await s.step('/undo\r');
      await shows(s, p.id);
      expect(s.term.screenText()).toMatch(new RegExp(`1  ${p.id}\\s+delegation\\s+coding\\s+2`));
      await s.step('1');
      await shows(s, `undid ${p.id}`);
      expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('before\n');
      expect(existsSync(join(ws, 'a.txt'))).toBe(false);
      await store.shutdown();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
