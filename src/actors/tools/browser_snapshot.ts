// browser_snapshot: the current page as text with numbered interactive elements (fresh numbers).
import { z } from 'zod';
import { browserTags, timeoutParam, withBrowser } from './browser-tool.js';
import { defineTool, ok } from './define.js';

const schema = z.object({ timeout_seconds: timeoutParam });

export default defineTool({
  name: 'browser_snapshot',
  schema,
  tags: browserTags(false, () => 'page'),
  execute: (args, ctx) => withBrowser(ctx, args.timeout_seconds, async (browser, o) => ok(await browser.snapshot(o))),
});
