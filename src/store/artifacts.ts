// Artifacts: full deliverables over budget, id `YYYYMMDD-HHMMSS-<8 hex>`, atomic write, paged reads.
// Binary artifacts are PNG images only (browser screenshots): anything else must be text, which the redactor sees.
import { nodeCrypto } from '../runtime/lazy-builtins.js';
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
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-${nodeCrypto().randomBytes(4).toString('hex')}`;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isPng(data: Uint8Array): boolean {
  return data.length >= 24 && Buffer.from(data.buffer, data.byteOffset, 8).equals(PNG_SIGNATURE);
}

/** Width and height from the IHDR chunk (always first, bytes 16–23). */
function pngSize(data: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(data.buffer, data.byteOffset, data.length);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

export class ArtifactStore {
  constructor(
    private readonly root: string,
    private readonly now: () => number,
  ) {}

  async write(content: string | Uint8Array): Promise<string> {
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

  /** A PNG image (a browser screenshot); any other bytes are refused, so text never bypasses the redactor. */
  async writeImage(data: Uint8Array): Promise<string> {
    if (!isPng(data)) throw new StoreError('BAD_INPUT', 'a binary artifact must be a PNG image');
    return this.write(data);
  }

  /** Pages by characters; `nextOffset` null at the end. The id regex is also the path-traversal guard.
   *  An image is described in one line, never returned as bytes. */
  async read(id: string, offset = 0, limit = DEFAULT_PAGE_CHARS): Promise<ArtifactPage> {
    if (!ARTIFACT_ID_RE.test(id)) throw new StoreError('BAD_INPUT', `not an artifact id: ${id}`);
    let raw: Buffer;
    try {
      raw = await fsp.readFile(join(artifactsDir(this.root), id));
    } catch {
      throw new StoreError('NOT_FOUND', `artifact ${id} not found`);
    }
    if (isPng(raw)) {
      const { width, height } = pngSize(raw);
      const text = `[artifact ${id} is a PNG image, ${width}×${height} px, ${raw.length} bytes: it has no text to read]`;
      return { text, total: text.length, nextOffset: null };
    }
    const text = raw.toString('utf8');
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
