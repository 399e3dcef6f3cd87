// delegate_devops: system inspection and shell work by the DevOps agent; Repo may delegate to it too.
import { delegationTool } from './delegate.js';

export default delegationTool('devops', ['director', 'repo'], true);
