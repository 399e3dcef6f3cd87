// browser_press: one key (or chord) to the focused element; returns the page after it.
import { z } from 'zod';
import { browserTags, timeoutParam, withBrowser } from './browser-tool.js';
import { briefArg, defineTool, ok } from './define.js';

const schema = z.object({
  key: z.string().min(1).describe('Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Space, one character, or a chord like Control+a / Shift+Tab.'),
  timeout_seconds: timeoutParam,
});

export default defineTool({
  name: 'browser_press',
  schema,
  tags: browserTags(true, (a) => briefArg(a, 'key')),
  execute: (args, ctx) => withBrowser(ctx, args.timeout_seconds, async (browser, o) => ok(await browser.press(args.key, o))),
});
