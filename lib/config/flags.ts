import { ConfigError } from './errors';

/**
 * Deploy-time feature switches (SPEC: Feature flags). Each flag resolves, first match wins:
 * SVC_FF_<NAME>, its legacy alias, the SVC_FF JSON blob, the registry default.
 */
export const FLAG_NAMES = ['l1_signing', 'l2_signing', 'agent_contacts', 'agent_offers', 'agent_editor'] as const;
export type FlagName = (typeof FLAG_NAMES)[number];
export type FlagSnapshot = Record<FlagName, boolean>;
export type FlagSource = 'env' | 'legacy' | 'blob' | 'default' | 'requires';

interface FlagDefinition {
  legacyEnv?: string;
  defaultFor(svcEnv: string): boolean;
  /** Another flag that must be on for this one to be on. */
  requires?: FlagName;
}

const REGISTRY: Record<FlagName, FlagDefinition> = {
  l1_signing: { defaultFor: () => true },
  l2_signing: { legacyEnv: 'SVC_ALLOW_L2', defaultFor: (svcEnv) => svcEnv !== 'production' },
  agent_contacts: { defaultFor: () => true },
  agent_offers: { defaultFor: () => true, requires: 'agent_contacts' },
  agent_editor: { defaultFor: () => true },
};

export function flagEnvName(name: FlagName): string {
  return `SVC_FF_${name.toUpperCase()}`;
}

const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes']);
const FALSE_WORDS = new Set(['0', 'false', 'off', 'no']);

function parseSwitch(variable: string, raw: string): boolean {
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new ConfigError(`${variable} must be one of true/false, on/off, yes/no, 1/0 (got ${JSON.stringify(raw)})`);
}

function parseBlob(raw: string | undefined): Partial<FlagSnapshot> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('SVC_FF must be a JSON object such as {"l2_signing": false}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('SVC_FF must be a JSON object such as {"l2_signing": false}');
  }
  const blob: Partial<FlagSnapshot> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(FLAG_NAMES as readonly string[]).includes(key)) {
      throw new ConfigError(`SVC_FF names an unknown flag ${JSON.stringify(key)}; known flags: ${FLAG_NAMES.join(', ')}`);
    }
    if (typeof value !== 'boolean') {
      throw new ConfigError(`SVC_FF.${key} must be true or false`);
    }
    blob[key as FlagName] = value;
  }
  return blob;
}

export interface ResolvedFlags {
  values: FlagSnapshot;
  sources: Record<FlagName, FlagSource>;
}

type Env = Record<string, string | undefined>;

function present(env: Env, variable: string): string | undefined {
  const raw = env[variable];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

export function resolveFlags(env: Env, svcEnv: string): ResolvedFlags {
  const blob = parseBlob(env.SVC_FF);
  const values = {} as FlagSnapshot;
  const sources = {} as Record<FlagName, FlagSource>;
  for (const name of FLAG_NAMES) {
    const definition = REGISTRY[name];
    const own = present(env, flagEnvName(name));
    const legacy = definition.legacyEnv ? present(env, definition.legacyEnv) : undefined;
    if (own !== undefined) {
      values[name] = parseSwitch(flagEnvName(name), own);
      sources[name] = 'env';
    } else if (legacy !== undefined) {
      values[name] = parseSwitch(definition.legacyEnv!, legacy);
      sources[name] = 'legacy';
    } else if (blob[name] !== undefined) {
      values[name] = blob[name]!;
      sources[name] = 'blob';
    } else {
      values[name] = definition.defaultFor(svcEnv);
      sources[name] = 'default';
    }
  }
  for (const name of FLAG_NAMES) {
    const required = REGISTRY[name].requires;
    if (required && values[name] && !values[required]) {
      values[name] = false;
      sources[name] = 'requires';
    }
  }
  return { values, sources };
}
