// delegate_chat: a general question answered by the Chat agent (no file access).
import { delegationTool } from './delegate.js';

export default delegationTool('chat', ['director'], false);
