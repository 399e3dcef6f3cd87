// Golden tool surfaces: what each agent's model sees, produced by the production wiring (surfaceFor).
// Changing a surface is an explicit, reviewed act: `npm run golden:update` rewrites these files.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS, surfaceFor, type AgentKind, type SurfaceOptions } from '../../src/actors/tools/profiles.js';
import { renderParameters } from '../../src/actors/tools/define.js';
import { discoverBrowser } from '../../src/actors/browser/discover.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'surfaces');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** The variants pinned: every agent kind as started, plus -Y and one custom agent shaped like Meta's output. */
const VARIANTS: { file: string; agent: AgentKind; options: SurfaceOptions }[] = [
  ...AGENT_KINDS.filter((a) => a !== 'custom').map((agent) => ({ file: agent, agent, options: {} })),
  { file: 'director.full-yolo', agent: 'director', options: { fullYolo: true } },
  { file: 'coding.full-yolo', agent: 'coding', options: { fullYolo: true } },
  { file: 'director.disabled-coding-devops', agent: 'director', options: { disabledAgents: ['coding', 'devops'] } },
  { file: 'custom.reader', agent: 'custom', options: { tools: ['read_file', 'grep', 'glob', 'list_dir', 'ask_user_for_help'] } },
  // no browser on this machine: delegate_browser stays, saying why and how to fix it (production's reason text)
  { file: 'director.browser-unavailable', agent: 'director', options: { unavailableAgents: { browser: noBrowserReason() } } },
];

function noBrowserReason(): string {
  const r = discoverBrowser({ enabled: true, executable: '' }, { PATH: '' });
  return r.ok ? '' : r.reason;
}

function render(agent: AgentKind, options: SurfaceOptions): string {
  const s = surfaceFor(agent, options);
  const tools = s.list().map((d) => {
    const { brief: _brief, ...tags } = d.tags;
    return { name: d.name, description: d.description, parameters: renderParameters(d), tags };
  });
  return `${JSON.stringify({ agent, options, autonomous: s.autonomous, catalogue: s.catalogue(), tools }, null, 2)}\n`;
}

describe('golden tool surfaces', () => {
  it.each(VARIANTS)('surface of $file matches its golden file', ({ file, agent, options }) => {
    const path = join(DIR, `${file}.json`);
    const actual = render(agent, options);
    if (UPDATE) {
      mkdirSync(DIR, { recursive: true });
      writeFileSync(path, actual);
    }
    expect(existsSync(path), `no golden for ${file}: run npm run golden:update and review it`).toBe(true);
    expect(actual, `surface of ${file} drifted: review the diff, then npm run golden:update`).toBe(readFileSync(path, 'utf8'));
  });

  it('goldens list tools sorted by name', () => {
    for (const v of VARIANTS) {
      const names = (JSON.parse(render(v.agent, v.options)) as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names).toEqual([...names].sort());
    }
  });
});
