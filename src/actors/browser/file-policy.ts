// What the browser may load from file: URLs — every load, frames and images included, intercepted browser-wide
// (Fetch domain): read_file's boundary. Inside the workspace: allowed; the data root and secret stores: never;
// anything else only the exact files the user approved through browser_open (the adapter asked for them).
import type { Boundary } from '../tools/boundary.js';
import { fileUrlPath } from '../tools/path-resolve.js';

export type FileVerdict = { ok: true } | { ok: false; why: string };

export class FilePolicy {
  private readonly approved = new Set<string>();
  /** Loads refused since the last take(): the next tool result names them. */
  private refused: string[] = [];

  constructor(private readonly boundary: Boundary) {}

  /** A file outside the workspace the user approved (browser_open passed the guard): loads of it are allowed. */
  approve(real: string): void {
    this.approved.add(real);
  }

  decide(url: string): FileVerdict {
    const real = fileUrlPath(url);
    if (real === null) return this.refuse(url, 'not a local file URL');
    const b = this.boundary.resolved();
    const denied = b.denied(real, 'read');
    if (denied !== null) return this.refuse(url, denied);
    if (b.inside(real) || this.approved.has(real)) return { ok: true };
    return this.refuse(url, 'outside the workspace (open it with browser_open to ask for it)');
  }

  /** The refusals since the last call, oldest first (at most 5 named). */
  take(): string[] {
    const out = this.refused;
    this.refused = [];
    return out.length > 5 ? [...out.slice(0, 5), `… and ${out.length - 5} more`] : out;
  }

  private refuse(url: string, why: string): FileVerdict {
    this.refused.push(`${url}: ${why}`);
    return { ok: false, why };
  }
}
