// The delegation brief: a failure to resolve its context refs is a warning, never a silent "not a note".
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBrief } from '../../src/actors/agents/brief.js';
import { ProjectContext } from '../../src/actors/agents/project-context.js';
import type { LogEvent } from '../../src/runtime/log-event.js';
import { storeIn, tempRoot } from '../store/helpers.js';

const tmp = tempRoot('yagent-brief-');
afterAll(() => tmp.cleanup());

describe('buildBrief', () => {
  it('refs the store cannot resolve are published as a resolveRefs warning and still named in the brief', async () => {
    const workspace = join(tmp.dir, 'ws');
    mkdirSync(workspace, { recursive: true });
    const store = storeIn(join(tmp.dir, 'home'));
    const warnings: LogEvent[] = [];
    // a blank board id is refused by the real store (EMPTY_BOARD)
    const brief = await buildBrief({
      task: 'read the note',
      refs: ['20260101-000000-abcd-1'],
      boardId: ' ',
      store,
      projectContext: new ProjectContext(workspace),
      publish: (e) => void warnings.push(e),
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ type: 'log', level: 'warn', source: 'resolveRefs' });
    expect(warnings[0]?.message).toMatch(/^notes 20260101-000000-abcd-1 left out of the brief: .*empty board id/);
    expect(brief).toContain('Also read first');
    expect(brief).toContain('20260101-000000-abcd-1');
    await store.shutdown();
  });
});
