// smol-toml's parse errors in words a user can act on: what is wrong, at which line and column.

/** Where a basic ("…") or literal ('…') string opened on `line` is still open at its end, or null. */
function openStringColumn(line: string): { column: number; quote: string } | null {
  let open: { column: number; quote: string } | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (open === null) {
      if (c === '#') return null; // a comment: nothing after it is a string
      if (c === '"' || c === "'") open = { column: i + 1, quote: c };
    } else if (c === '\\' && open.quote === '"') {
      i++; // an escape: the next character never closes the string
    } else if (c === open.quote) {
      open = null;
    }
  }
  return open;
}

/** The first line of the message and the position to report (1-based); `line`/`column` as smol-toml gave them. */
export function describeTomlError(text: string, message: string, line: number, column: number): { what: string; line: number; column: number } {
  const first = (message.split('\n')[0] ?? 'invalid TOML').replace(/^Invalid TOML document:\s*/, '');
  const src = text.split(/\r?\n/)[line - 1] ?? '';
  // a newline inside a one-line string is what smol-toml calls a control character: the string was never closed
  if (/control characters are not allowed in strings/.test(first)) {
    const open = openStringColumn(src);
    if (open !== null) {
      return { what: `unterminated string: the ${open.quote} opened at line ${line}, column ${open.column} is not closed before the end of the line`, line, column: open.column };
    }
  }
  return { what: `${first} (line ${line}, column ${column})`, line, column };
}
