import type { Plan } from '../../db/models';
import type { FlagName, FlagSnapshot } from '../../lib/config/flags';
import { errors, type ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';

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
    if (!caller) return errors.unauthorized(t('errors.auth.no_key'));
    const { plan } = caller.tenant;
    if (needs.plan && !isBusinessPlus(plan)) {
      // The purpose names what needs the plan, the caller whose account it is (errors.accounts.plan_required).
      return errors.planRequired(
        t('errors.accounts.plan_required', { purpose: needs.plan, caller: caller.apiKey ? 'key' : 'session', plan }),
      );
    }
    if (needs.scope && !caller.apiKey?.scopes.includes(needs.scope)) {
      return errors.insufficientScope(
        caller.apiKey
          ? t('errors.accounts.key_lacks_scope', { scope: needs.scope })
          : t('errors.accounts.needs_key_with_scope', { scope: needs.scope }),
      );
    }
  }
  if (needs.flag) {
    if (!flags) throw new Error(`the gate needs the flag snapshot to check ${needs.flag}`);
    if (flags[needs.flag]) return undefined;
    // The message names the L1 and L2 flags by their feature, any other flag by its key.
    return errors.featureDisabled(t('errors.accounts.feature_disabled', { flag: needs.flag }));
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
