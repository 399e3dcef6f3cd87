// delegate_browser: web work by the Browser agent (a real headless Chromium); it changes no workspace file.
import { delegationTool } from './delegate.js';

export default delegationTool('browser', ['director'], false);
