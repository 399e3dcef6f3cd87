// Text-level, comment-preserving write-back: one key in one section; never re-encodes the whole file.
import { readFile, realpath, stat } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { atomicWrite, PRIVATE_FILE_MODE } from '../atomic-write.js';
import { ConfigError } from './errors.js';
import { parseConfigText } from './loader.js';
import { referencedProviders } from './resolve.js';

export type TomlValue = string | number | boolean | readonly string[];

/** Every value is escaped: strings as TOML basic strings (JSON escapes are a subset TOML accepts). */
export function encodeValue(v: TomlValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write non-finite number ${v}`);
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return `[${v.map((s) => JSON.stringify(s)).join(', ')}]`;
}

function headerName(line: string): string | null {
  const m = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
  return m?.[1] !== undefined ? m[1].replace(/\s*\.\s*/g, '.') : null;
}

/** Index just past the value on a `key = value  # comment` line (start of the comment or its padding). */
function valueEnd(line: string, from: number): number {
  let inStr: string | null = null;
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (inStr !== null) {
      if (c === '\\' && inStr === '"') i++;
      else if (c === inStr) inStr = null;
    } else if (c === '"' || c === "'") inStr = c;
    else if (c === '#') {
      let j = i;
      while (j > from && /\s/.test(line[j - 1] ?? '')) j--;
      return j;
    }
  }
  return line.trimEnd().length;
}

function bracketDepth(s: string): number {
  let d = 0;
  let inStr: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inStr !== null) {
      if (c === '\\' && inStr === '"') i++;
      else if (c === inStr) inStr = null;
    } else if (c === '"' || c === "'") inStr = c;
    else if (c === '#') break;
    else if (c === '[') d++;
    else if (c === ']') d--;
  }
  return d;
}

/** Sets `key = value` in `[section]`; appends the key (or the section) when missing. Comments survive. */
export function setKeyInSection(text: string, section: string, key: string, value: TomlValue): string {
  const lines = text.split('\n');
  const encoded = encodeValue(value);
  const keyRe = new RegExp(`^(\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=\\s*)`);
  let start = -1;
  for (let i = 0; i < lines.length; i++) if (headerName(lines[i] ?? '') === section) start = i;
  if (start < 0) {
    const tail = text.endsWith('\n') || text === '' ? '' : '\n';
    return `${text}${tail}\n[${section}]\n${key} = ${encoded}\n`;
  }
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (headerName(lines[i] ?? '') !== null) {
      end = i;
      break;
    }
  }
  let lastKey = start;
  for (let i = start + 1; i < end; i++) {
    const line = lines[i] ?? '';
    if (/^\s*[^#\s]/.test(line)) lastKey = i;
    const m = keyRe.exec(line);
    if (m === null) continue;
    let last = i;
    let depth = bracketDepth(line.slice(m[1]?.length ?? 0));
    while (depth > 0 && last + 1 < end) depth += bracketDepth(lines[++last] ?? '');
    const endLine = lines[last] ?? '';
    const comment = last === i ? line.slice(valueEnd(line, m[1]?.length ?? 0)) : endLine.slice(valueEnd(endLine, 0));
    lines.splice(i, last - i + 1, `${m[1] ?? ''}${encoded}${comment}`);
    return lines.join('\n');
  }
  lines.splice(lastKey + 1, 0, `${key} = ${encoded}`);
  return lines.join('\n');
}

/** Removes a provider table; refused while any use_provider / fallback_providers / tier refers to it. */
export function removeProviderSection(text: string, path: string, name: string): string {
  const cfg = parseConfigText(text, path, process.env, false);
  const where = referencedProviders(cfg).get(name);
  if (where !== undefined) {
    throw new ConfigError(`provider "${name}" is still referenced`, `${path}: ${where}`, 'point that reference at another provider first, then delete this one');
  }
  const lines = text.split('\n');
  const header = `global.llm.providers.${name}`;
  const start = lines.findIndex((l) => headerName(l) === header);
  if (start < 0) return text;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (headerName(lines[i] ?? '') !== null) {
      end = i;
      break;
    }
  }
  lines.splice(start, end - start);
  return lines.join('\n');
}

export interface WriteBackOptions {
  /** Told when the file's mode was wider than 0600 and is narrowed. */
  warn?: (message: string) => void;
}

/** The file's permission bits to keep: its own when private, else 0600 (told through `warn`). */
async function modeToKeep(path: string, warn?: (m: string) => void): Promise<number> {
  let mode: number;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch {
    return PRIVATE_FILE_MODE; // a new file
  }
  if ((mode & 0o077) === 0) return mode;
  warn?.(`yagent: ${path} was mode 0${mode.toString(8)} (readable by others; it may hold an API key): written back as 0600`);
  return PRIVATE_FILE_MODE;
}

/**
 * Replaces the user's config with `text` atomically: it must parse (TOML) first, then tmp file → rename
 * through the one atomicWrite, so a crash leaves the old file or the new one, never a truncated one.
 * A symlinked config keeps its link (the target is replaced).
 */
export async function writeConfigText(path: string, text: string, opts: WriteBackOptions = {}): Promise<void> {
  try {
    parse(text);
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    throw new ConfigError(`the new config text does not parse: ${err.message.split('\n')[0] ?? 'invalid TOML'}`, `${path}:${err.line}:${err.column}`, 'nothing was written; fix the TOML syntax of the file first');
  }
  // a new file has no real path yet; any other failure (a symlink loop, an unreadable directory) is the caller's
  // error: writing `path` itself would silently replace the user's link with a plain file
  const target = await realpath(path).catch((err: unknown) => ((err as NodeJS.ErrnoException).code === 'ENOENT' ? path : Promise.reject(err)));
  await atomicWrite(target, text, { mode: await modeToKeep(target, opts.warn) });
}

export async function persistKey(path: string, section: string, key: string, value: TomlValue, opts: WriteBackOptions = {}): Promise<void> {
  const text = await readFile(path, 'utf8');
  await writeConfigText(path, setKeyInSection(text, section, key, value), opts);
}

export async function deleteProvider(path: string, name: string, opts: WriteBackOptions = {}): Promise<void> {
  const text = await readFile(path, 'utf8');
  await writeConfigText(path, removeProviderSection(text, path, name), opts);
}
