// The frame an app state shows: every region's lines sized by the one layout, the dialog on top and where the
// terminal's cursor goes. The app paints it; tests paint it on a fresh screen to compare cells.
import type { FrameSource } from './parts.js';
import { computeLayout } from './layout.js';
import type { Frame } from './screen.js';
import { dialogBox, inputLines, inputView, sidebarLines, statusLine, streamLines, streamScrolled } from './view.js';
import { anchorAt, scrollOf } from './anchor.js';

export function frameOf(app: FrameSource): Frame {
  const cols = app.screen.cols;
  const rows = app.screen.rows;
  const help = app.helps[0];
  const dialog = app.info ? app.info.data : help ? help.data : app.setup ? app.setup.data : null;
  const hint = app.setup ? 'setup: type the answer, Enter sends · Esc cancels' : help?.question ? 'answer the question, Enter sends' : app.run === 'idle' ? 'type a task, Enter sends · /help' : app.runningHint;
  // the input box grows with the typed text's rows AFTER wrapping (a long line is several rows); a secret shows dots
  const secret = app.setup?.secret === true;
  const shown = secret ? '•'.repeat(app.input.text.length) : app.input.text;
  const typed = inputView(shown, secret ? shown.length : app.input.cursor, Math.max(1, cols), hint);
  const layout = computeLayout(cols, rows, typed.rows.length);
  const input = inputLines(typed, layout.input.width, layout.input.height);
  // the terminal's cursor sits in the input box unless a dialog that takes keys itself is open
  const typing = app.info === null && (help === undefined || help.question);
  const { width, height } = layout.stream;
  const entries = app.conv.entries;
  // PgUp / PgDn: anchor the asked window at its top line; anchored, new lines below only grow the scroll
  if (app.scrollTo !== null) [app.anchor, app.scrollTo] = [anchorAt(entries, width, height, app.scrollTo), null];
  const below = app.anchor ? scrollOf(entries, width, height, app.anchor) : 0;
  if (!below) app.anchor = null; // at the bottom again (or its entry is gone): follow
  const stream = streamLines(entries, width, height, below ?? 0, app.only);
  app.scroll = streamScrolled(); // never past the top: PgDn comes back at once
  app.page = Math.max(1, layout.stream.height - 2);
  return {
    layout,
    stream,
    sidebar: sidebarLines(app.side.data, layout.sidebar.width, layout.sidebar.height, app.only !== null),
    input: input.lines,
    status: statusLine({ model: app.side.model, tier: app.side.tier, session: app.session, run: app.run, where: app.backend.where, notice: app.notice, scrolled: app.scroll, waiting: app.side.waiting }, layout.status.width),
    dialog: dialog ? dialogBox(dialog, cols, layout.input.top) : null,
    cursor: typing && input.cursorRow < layout.input.height ? { x: Math.min(typed.cursor.col, cols - 1), y: layout.input.top + input.cursorRow } : null,
  };
}
