// The guard's fast paths (bench `tools`) decide exactly what the plain definitions decide: `isInside` by string
// prefix for normal absolute paths against `path.relative`, and the boundary's "zones below the root" shortcut for
// paths in the workspace against the rule as written (a zone denies unless it holds the workspace too). Seeded
// strings with `.`, `..`, empty segments, hidden names, trailing slashes and relative paths.
import { isAbsolute, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rng } from '../seeded.js';
import { isInside, isNormalAbsolute } from '../../src/actors/tools/path-resolve.js';
import { ResolvedBoundary } from '../../src/actors/tools/boundary.js';

const SEED = 0x1ad5;
const COUNT = 4000;


const SEGMENTS = ['a', 'b', 'ab', '.', '..', '', '.a', '..b', '...', '.ssh', 'ws', 'home', '.yagent'];

function segsFrom(next: () => number): string {
  const n = Math.floor(next() * 5);
  // mostly plain names, so that many strings take the fast path
  return Array.from({ length: n }, () => SEGMENTS[Math.floor(next() * (next() < 0.6 ? 3 : SEGMENTS.length))] ?? 'a').join('/');
}

function pathFrom(next: () => number): string {
  const r = next();
  const lead = r < 0.85 ? '/' : r < 0.9 ? '//' : '';
  return `${lead}${segsFrom(next)}${next() < 0.2 ? '/' : ''}` || '.';
}

/** A path under `root` (lexically), possibly leaving it again through `..`. */
const below = (root: string, next: () => number): string => `${root}${root.endsWith('/') ? '' : '/'}${segsFrom(next)}`;

/** The definition before the fast path (and still its fallback). */
function insideByRelative(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

describe('guard fast paths decide like the plain definitions', () => {
  it(`isInside agrees with path.relative on ${COUNT} seeded pairs`, () => {
    const next = rng(SEED);
    let fast = 0;
    for (let i = 0; i < COUNT; i++) {
      const root = pathFrom(next);
      const p = next() < 0.4 ? below(root, next) : pathFrom(next);
      if (isNormalAbsolute(root) && isNormalAbsolute(p)) fast++;
      expect(isInside(root, p), `seed ${SEED} #${i}: isInside(${JSON.stringify(root)}, ${JSON.stringify(p)})`).toBe(insideByRelative(root, p));
    }
    // the comparison exercised the string-prefix path, not only the fallback
    expect(fast).toBeGreaterThan(COUNT / 4);
  });

  it('isNormalAbsolute accepts exactly what path.resolve leaves unchanged (up to a trailing slash)', () => {
    const next = rng(SEED + 1);
    for (let i = 0; i < COUNT; i++) {
      const p = pathFrom(next);
      const trimmed = p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
      const normal = isAbsolute(p) && !p.includes('//') && relative('/', trimmed) === trimmed.slice(1);
      expect(isNormalAbsolute(p), `#${i}: ${JSON.stringify(p)}`).toBe(normal);
    }
  });

  it('the boundary denies a path exactly when a zone holds it and does not hold the workspace it is in', () => {
    const next = rng(SEED + 2);
    for (let i = 0; i < COUNT / 4; i++) {
      const root = pathFrom(next);
      const zones = Array.from({ length: 1 + Math.floor(next() * 4) }, () => (next() < 0.5 ? below(root, next) : pathFrom(next)));
      const b = new ResolvedBoundary(root, zones, []);
      for (let j = 0; j < 8; j++) {
        const real = next() < 0.5 ? below(root, next) : pathFrom(next);
        const inWs = insideByRelative(root, real);
        const holder = zones.find((z) => insideByRelative(z, real) && !(inWs && insideByRelative(z, root)));
        // as written before the shortcut; the basename rule (.netrc, .env*) only applies outside the workspace
        const expected = holder !== undefined || (!inWs && /(^|\/)(\.netrc|\.env[^/]*)\/?$/.test(real));
        expect(b.denied(real, 'read') !== null, `#${i}/${j}: root ${root}, zones ${JSON.stringify(zones)}, path ${real}`).toBe(expected);
      }
    }
  });
});
