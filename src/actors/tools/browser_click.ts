// browser_click: a real mouse click on a numbered element; returns the page after it (navigation included).
import { z } from 'zod';
import { browserTags, refParam, timeoutParam, withBrowser } from './browser-tool.js';
import { defineTool, ok } from './define.js';

const schema = z.object({ ref: refParam, timeout_seconds: timeoutParam });

export default defineTool({
  name: 'browser_click',
  schema,
  tags: browserTags(true, (a) => `[${String(a.ref ?? '?')}]`),
  execute: (args, ctx) => withBrowser(ctx, args.timeout_seconds, async (browser, o) => ok(await browser.click(args.ref, o))),
});
