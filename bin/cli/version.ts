// `yagent --version`: the version with the commit and build time of the build stamp `npm run build` writes.
import { readFileSync } from 'node:fs';

interface BuildStamp {
  version?: unknown;
  commit?: unknown;
  built_at?: unknown;
}

/** `0.1.0 (commit 0123abcd4567, built 2026-12-02T02:40:11.000Z)`; a build without a stamp (plain tsc) says so. */
export function versionLine(version: string, stampUrl: URL): string {
  let stamp: BuildStamp;
  try {
    stamp = JSON.parse(readFileSync(stampUrl, 'utf8')) as BuildStamp;
  } catch {
    return `${version} (no build stamp: build with \`npm run build\`)\n`;
  }
  const commit = typeof stamp.commit === 'string' ? stamp.commit : 'unknown';
  const built = typeof stamp.built_at === 'string' ? stamp.built_at : 'unknown';
  // a stamp of another version: package.json changed since the build
  const stale = typeof stamp.version === 'string' && stamp.version !== version ? `, stamp of ${stamp.version}: rebuild` : '';
  return `${version} (commit ${commit}, built ${built}${stale})\n`;
}
