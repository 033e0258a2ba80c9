import type Router from '@koa/router';
import type { Services } from '../../activities/services';
import { loginRoutes } from './login';
import { agentContactRoutes } from './pages/agent-contacts';
import { claimRoutes } from './pages/claim';
import { documentVoidRoutes } from './pages/document-void';
import { documentRoutes } from './pages/documents';
import { keyRoutes } from './pages/keys';
import { mandateRoutes } from './pages/mandates';
import { overviewRoutes } from './pages/overview';
import { signatureRoutes } from './pages/signature';
import { stopRoutes } from './pages/stop';
import { templateEditorRoutes } from './pages/template-editor';
import { templateRoutes } from './pages/templates';
import { verifyRoutes } from './pages/verify';
import { signRequestRoutes } from './sign-request';

/** The principal's app (server-rendered pages at SVC_APP_URL). */
export function appRoutes(router: Router, deps: Services, appPath: string): void {
  loginRoutes(router, deps, appPath);
  signRequestRoutes(router, deps, appPath);
  overviewRoutes(router, deps, appPath);
  documentRoutes(router, deps, appPath);
  documentVoidRoutes(router, deps, appPath);
  signatureRoutes(router, deps, appPath);
  keyRoutes(router, deps, appPath);
  mandateRoutes(router, deps, appPath);
  agentContactRoutes(router, deps, appPath);
  templateRoutes(router, deps, appPath);
  templateEditorRoutes(router, deps, appPath);
  claimRoutes(router, deps, appPath);
  verifyRoutes(router, deps, appPath);
  stopRoutes(router, deps, appPath);
}
