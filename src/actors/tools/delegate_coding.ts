// delegate_coding: changes to the code by the Coding agent (writes files, runs commands).
import { delegationTool } from './delegate.js';

export default delegationTool('coding', ['director'], true);
