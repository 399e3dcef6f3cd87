// browser_screenshot: a PNG of the page stored as an artifact; the model gets its id and size, never the bytes.
import { z } from 'zod';
import { browserTags, timeoutParam, withBrowser } from './browser-tool.js';
import { defineTool, ok } from './define.js';

const schema = z.object({
  full_page: z.boolean().default(false).describe('The whole page (up to 16000 px tall) instead of the visible window.'),
  timeout_seconds: timeoutParam,
});

export default defineTool({
  name: 'browser_screenshot',
  schema,
  tags: browserTags(false, (a) => (a.full_page === true ? 'full page' : 'window')),
  execute: (args, ctx) =>
    withBrowser(ctx, args.timeout_seconds, async (browser, o) => {
      const shot = await browser.screenshot(args.full_page, o);
      const id = await ctx.store.writeImageArtifact(shot.png);
      const what = args.full_page ? 'the whole page' : 'the visible window';
      return ok(
        `Saved a screenshot of ${what} as artifact ${id} (PNG, ${shot.width}×${shot.height} px, ${shot.png.length} bytes). You cannot see the image: list the id in agent_exit's artifacts for the user, and read the page with browser_snapshot.`,
        `screenshot ${id} (${shot.width}×${shot.height})`,
      );
    }),
});
