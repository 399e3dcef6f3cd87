// The one geometry function: every region's size from the terminal size; regions never overlap or overflow.

export interface Rect {
  top: number;
  left: number;
  width: number;
  height: number;
}

export interface Layout {
  stream: Rect;
  /** width 0 = collapsed (narrow terminal). */
  sidebar: Rect;
  input: Rect;
  status: Rect;
}

export const MIN_COLS = 40;
export const MIN_ROWS = 12;
/** Below this width the sidebar collapses and the stream takes the whole row. */
export const SIDEBAR_MIN_COLS = 80;

/** `inputLines` = lines the input buffer wants (multi-line input grows the box up to a third of the screen). */
export function computeLayout(cols: number, rows: number, inputLines: number): Layout {
  const c = Math.max(1, cols);
  const r = Math.max(3, rows);
  const inputBody = Math.max(1, Math.min(inputLines, Math.floor(r / 3), 8));
  const inputH = inputBody + 1; // + the rule line above it
  const statusH = 1;
  const mainH = Math.max(1, r - inputH - statusH);
  const sideW = c >= SIDEBAR_MIN_COLS ? Math.min(40, Math.floor(c * 0.3)) : 0;
  return {
    stream: { top: 0, left: 0, width: c - sideW, height: mainH },
    sidebar: { top: 0, left: c - sideW, width: sideW, height: sideW === 0 ? 0 : mainH },
    input: { top: mainH, left: 0, width: c, height: inputH },
    status: { top: r - statusH, left: 0, width: c, height: statusH },
  };
}
