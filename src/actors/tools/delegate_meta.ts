// delegate_meta: asks the Meta agent to design a custom agent for a recurring kind of task.
import { delegationTool } from './delegate.js';

export default delegationTool('meta', ['director'], false);
