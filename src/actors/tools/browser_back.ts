// browser_back: one step back in the page's history; returns that page.
import { z } from 'zod';
import { browserTags, timeoutParam, withBrowser } from './browser-tool.js';
import { defineTool, ok } from './define.js';

const schema = z.object({ timeout_seconds: timeoutParam });

export default defineTool({
  name: 'browser_back',
  schema,
  tags: browserTags(true, () => 'back'),
  execute: (args, ctx) => withBrowser(ctx, args.timeout_seconds, async (browser, o) => ok(await browser.back(o))),
});
