// delegate_repo: read-only investigation of the repository by the Repo agent.
import { delegationTool } from './delegate.js';

export default delegationTool('repo', ['director'], false);
