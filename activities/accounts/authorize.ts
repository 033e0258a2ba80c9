import type { Plan } from '../../db/models';
import type { FlagName, FlagSnapshot } from '../../lib/config/flags';
import { errors, type ServiceError } from '../../lib/errors';

/**
 * Who asks, as the gate needs to know them: an API key acting for its principal (REST, MCP, CLI), or
 * a principal signed in to the app (no key, so no scopes).
 */
export interface GateCaller {
  tenant: { plan: Plan };
  apiKey?: { scopes: readonly string[] };
}

/**
 * What Business+ is needed for: it names the refusal, so each surface keeps its words (`api`: any
 * call with a key; `keys`: creating one in the app; `signing`: granting a mandate).
 */
export type PlanPurpose = 'api' | 'keys' | 'signing';

/** What an operation needs beyond a known caller; each surface and rule states it once and calls the gate. */
export interface Requirements {
  /** The Business plan or higher (the only tier requirement there is). */
  plan?: PlanPurpose;
  scope?: string;
  flag?: FlagName;
}

const PLAN_SUBJECT: Record<PlanPurpose, string> = {
  api: 'API access needs',
  keys: 'API keys need',
  signing: 'Signing by API needs',
};

/** How a refusal names a flag; a flag not listed is named by its key. */
const FLAG_FEATURE: Partial<Record<FlagName, string>> = { l1_signing: 'L1 signing', l2_signing: 'L2 signing' };

export function isBusinessPlus(plan: Plan): boolean {
  return plan === 'business' || plan === 'enterprise';
}

/**
 * Why the gate refuses, or undefined when it lets the caller through: plan, then scope, then flag
 * (the order REST always answered in). `caller` is null for an open operation, which can need a flag
 * only; `flags` (the deployment's snapshot) is needed when a flag is.
 */
export function refusalOf(caller: GateCaller | null, needs: Requirements, flags?: FlagSnapshot): ServiceError | undefined {
  if (needs.plan || needs.scope) {
    if (!caller) return errors.unauthorized();
    const { plan } = caller.tenant;
    if (needs.plan && !isBusinessPlus(plan)) {
      const whose = caller.apiKey ? 'this' : 'your';
      return errors.planRequired(`${PLAN_SUBJECT[needs.plan]} the Business plan or higher; ${whose} account is on ${plan}.`);
    }
    if (needs.scope && !caller.apiKey?.scopes.includes(needs.scope)) {
      return errors.insufficientScope(
        caller.apiKey ? `This key lacks the scope ${needs.scope}.` : `This needs an API key with the scope ${needs.scope}.`,
      );
    }
  }
  if (needs.flag) {
    if (!flags) throw new Error(`the gate needs the flag snapshot to check ${needs.flag}`);
    if (flags[needs.flag]) return undefined;
    const feature = FLAG_FEATURE[needs.flag];
    return errors.featureDisabled(
      feature ? `${feature} is disabled for this deployment.` : `The feature ${needs.flag} is disabled for this deployment.`,
    );
  }
  return undefined;
}

/**
 * The one gate of every surface (REST registry, app pages, MCP, CLI) and of the rules themselves:
 * throws 403 plan_required, insufficient_scope or feature_disabled with the reason.
 */
export function authorize(caller: GateCaller | null, needs: Requirements, flags?: FlagSnapshot): void {
  const refusal = refusalOf(caller, needs, flags);
  if (refusal) throw refusal;
}

/** Whether the gate lets the caller through: for pages that show or hide what it guards. */
export function permits(caller: GateCaller | null, needs: Requirements, flags?: FlagSnapshot): boolean {
  return refusalOf(caller, needs, flags) === undefined;
}
