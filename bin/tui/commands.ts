// Slash commands typed in the input box; an unknown one says so.
import type { CommandHost } from './parts.js';
import { timelineLine } from '../cli/timeline-text.js';
import { applyModel, openPicker, refusalOf } from './model-picker.js';
import { describeRestore, undoTable } from '../cli/undo-format.js';

export const COMMANDS: Record<string, string> = {
  '/help': 'this list',
  '/quit': 'quit (a running task is cancelled and drained)',
  '/clear': 'clear the conversation view',
  '/notes': 'notes written in this session',
  '/timeline': 'the current task\'s timeline',
  '/resume': 'pick a session of this workspace to continue',
  '/new': 'start a new session',
  '/model': 'pick a provider and model (a running task switches at its next step); /model NAME [MODEL]; /model auto',
  '/setup': 'choose the model provider, as `yagent setup` (refused while a task runs)',
  '/undo': 'what can be undone (press 1-9 to undo one); /undo ID undoes that point (as `yagent undo ID`)',
};

/** The keys as configured ([tui.keybindings] replaces defaults), so /help never names a key that does nothing. */
function keyHelp(app: CommandHost): string[] {
  const b = app.bindings;
  const k = (a: keyof typeof b): string => b[a].join('/');
  return [
    `${k('send')} send · ${k('newline')} new line · ${k('history_prev')}/${k('history_next')} history · ${k('scroll_up')}/${k('scroll_down')} scroll`,
    `${k('cancel')} cancel the task (C-c twice within 2 s quits) · ${k('pause')} pause/continue · ${k('tree')} delegation tree`,
    'editing: ←/→ Home/End C-a/C-e C-u/C-k C-w Delete; a pasted text is typed as is',
  ];
}

function show(app: CommandHost, title: string, body: string, pick?: (key: string) => boolean): void {
  app.info = { kind: 'info', data: { title, body, keys: 'any key closes' }, ...(pick ? { pick } : {}) };
}

export function runSlash(app: CommandHost, line: string): void {
  const [cmd = '', ...rest] = line.split(/\s+/);
  switch (cmd) {
    case '/help':
      return show(app, 'commands and keys', [...Object.entries(COMMANDS).map(([c, d]) => `${c.padEnd(10)} ${d}`), '', ...keyHelp(app)].join('\n'));
    case '/quit':
      return app.requestQuit();
    case '/clear':
      app.conv.clear();
      app.follow();
      return;
    case '/notes':
      return show(app, 'notes', app.side.data.notes.length ? app.side.data.notes.join('\n') : '(no notes written yet)');
    case '/new':
      if (app.run !== 'idle') return void (app.notice = '/new: a task is running');
      app.session = null;
      app.conv.addInfo('new session');
      return;
    case '/timeline': {
      const id = app.taskId;
      if (id === null) return show(app, 'timeline', '(no task yet)');
      app.tasks.go('tui-timeline', async () => {
        const entries = await app.backend.timeline(id);
        show(app, `timeline ${id} (newest first)`, entries.length ? entries.map(timelineLine).join('\n') : '(empty)');
        app.frames.mark();
      });
      return;
    }
    case '/model':
      return model(app, rest[0], rest[1]);
    case '/resume':
      return resume(app, rest[0]);
    case '/undo':
      return undo(app, rest[0]);
    case '/setup': {
      // the supervisor loaded its config once, for every client's tasks: rewriting it from here would change the
      // file under running tasks and still not reach the serve process, so say exactly what works instead
      const sup = app.backend.supervisor;
      if (sup) return show(app, 'setup', `/setup cannot reconfigure an attached supervisor: yagent serve (pid ${sup.pid}) runs every client's tasks on the config it loaded at start; run \`yagent setup\` in a terminal, then restart \`yagent serve\` and attach again.`);
      if (app.run !== 'idle') return void (app.notice = '/setup is refused while a task runs');
      if (!app.canSetup) return show(app, 'setup', 'Quit and run `yagent setup` in this terminal; a new config takes effect at the next start.');
      return app.openSetup();
    }
    default:
      app.notice = `unknown command ${cmd} (/help lists them)`;
  }
}

/** `/model` opens the picker (providers re-read, the models each server lists); `/model NAME [MODEL]` switches
 *  directly, refused with the reason when it cannot work; `/model auto` returns to routing. A running task switches
 *  at its next step. */
function model(app: CommandHost, name: string | undefined, modelName: string | undefined): void {
  // the next turn waits for the check: a prompt typed right after `/model NAME` already goes to NAME
  app.modelCheck = app.tasks.go('tui-model', async () => {
    const choices = (await app.backend.models?.()) ?? null;
    if (name === undefined) {
      if (choices !== null) openPicker(app, choices);
      else show(app, 'model', `now: ${app.side.model || '(no call yet)'}${app.provider ? ` (override ${app.provider})` : ''}\n/model NAME switches to a configured provider, /model auto returns to routing`);
    } else if (name === 'auto') applyModel(app, null, undefined);
    else {
      const refused = choices === null ? null : refusalOf(choices, name, modelName);
      if (refused !== null) app.notice = `/model: ${refused}`;
      else applyModel(app, name, modelName);
    }
    app.frames.mark();
  });
}

function resume(app: CommandHost, id: string | undefined): void {
  if (app.run !== 'idle') return void (app.notice = '/resume: a task is running');
  if (id !== undefined) {
    app.session = id;
    app.conv.addInfo(`resuming session ${id}`);
    return;
  }
  const list = app.listSessions;
  if (!list) return show(app, 'resume', '(sessions are not available here)');
  app.tasks.go('tui-sessions', async () => {
    const sessions = (await list()).slice(0, 9);
    if (sessions.length === 0) show(app, 'resume', '(no sessions in this workspace yet)');
    else
      show(app, 'resume: press 1-9', sessions.map((s, i) => `${i + 1}  ${when(s.updatedAt)}${s.turns} turn${s.turns === 1 ? '' : 's'}  ${s.lastPrompt.replace(/\s+/g, ' ')}${s.resumable?.ok === false ? ` (cannot continue: ${s.resumable.reason ?? ''})` : ''}`).join('\n'), (key) => {
        const chosen = sessions[Number(key) - 1];
        if (chosen?.resumable?.ok === false) app.notice = `session ${chosen.sessionId} cannot continue: ${chosen.resumable.reason ?? ''}`;
        else if (chosen) {
          app.session = chosen.sessionId;
          app.conv.addInfo(`resuming session ${chosen.sessionId}`);
        }
        return true;
      });
    app.frames.mark();
  });
}

/** `/undo` lists the points (a digit undoes one), `/undo ID` undoes that one; refused while a task changes files. */
function undo(app: CommandHost, id: string | undefined): void {
  const b = app.backend;
  if (!b.undoList || !b.undoRestore) return show(app, 'undo', '(undo is not available here)');
  if (app.run !== 'idle') return void (app.notice = '/undo: a task is running');
  const { undoList, undoRestore } = { undoList: b.undoList.bind(b), undoRestore: b.undoRestore.bind(b) };
  const restore = (pointId: string): void => {
    app.tasks.go('tui-undo', async () => {
      show(app, 'undo', describeRestore(await undoRestore(app.taskId, pointId)));
      app.frames.mark();
    });
  };
  if (id !== undefined) return restore(id);
  app.tasks.go('tui-undo-list', async () => {
    const points = (await undoList(app.taskId)).slice(0, 9);
    if (points.length === 0) show(app, 'undo', undoTable([]));
    else
      show(app, 'undo: press 1-9 to undo one', undoTable(points).split('\n').map((l, i) => (i === 0 ? `   ${l}` : l === '' ? l : `${i}  ${l}`)).join('\n'), (key) => {
        const chosen = points[Number(key) - 1];
        if (chosen) restore(chosen.id);
        return true;
      });
    app.frames.mark();
  });
}

const two = (n: number): string => String(n).padStart(2, '0');

/** "12-01 08:37  " (local time) for a picker row; nothing without a time. */
function when(ms: number | undefined): string {
  if (ms === undefined) return '';
  const d = new Date(ms);
  return `${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}  `;
}
