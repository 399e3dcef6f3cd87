// Artifacts: full deliverables over budget, id `YYYYMMDD-HHMMSS-<8 hex>`, atomic write, paged reads.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { ArtifactPage } from './api.js';
import { atomicWrite } from './atomic-write.js';
import { StoreError } from './errors.js';
import { artifactsDir } from './data-paths.js';

export const ARTIFACT_ID_RE = /^\d{8}-\d{6}-[0-9a-f]{8}$/;
export const DEFAULT_PAGE_CHARS = 8000;

export function newArtifactId(nowMs: number): string {
  const iso = new Date(nowMs).toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-${randomBytes(4).toString('hex')}`;
}

export class ArtifactStore {
  constructor(
    private readonly root: string,
    private readonly now: () => number,
  ) {}

  async write(content: string): Promise<string> {
    for (;;) {
      const id = newArtifactId(this.now());
      try {
        await atomicWrite(join(artifactsDir(this.root), id), content, { noClobber: true });
        return id;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }

  /** Pages by characters; `nextOffset` null at the end. The id regex is also the path-traversal guard. */
  async read(id: string, offset = 0, limit = DEFAULT_PAGE_CHARS): Promise<ArtifactPage> {
    if (!ARTIFACT_ID_RE.test(id)) throw new StoreError('BAD_INPUT', `not an artifact id: ${id}`);
    let text: string;
    try {
      text = await fsp.readFile(join(artifactsDir(this.root), id), 'utf8');
    } catch {
      throw new StoreError('NOT_FOUND', `artifact ${id} not found`);
    }
    const start = Math.max(0, Math.min(offset, text.length));
    const end = Math.min(text.length, start + Math.max(1, limit));
    return { text: text.slice(start, end), total: text.length, nextOffset: end < text.length ? end : null };
  }

  async exists(id: string): Promise<boolean> {
    if (!ARTIFACT_ID_RE.test(id)) return false;
    return fsp.access(join(artifactsDir(this.root), id)).then(
      () => true,
      () => false,
    );
  }
}
