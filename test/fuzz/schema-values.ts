// Values for a JSON Schema: plausible ones built from the run's real material, then hostilely mutated.
import fc from 'fast-check';
import { hostileJson, hostileString } from './hostile';

export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  default?: unknown;
}

/** What a generated value may be built from: real ids, tokens and e-mails of the fuzz run, by field name. */
export interface Material {
  ids: string[];
  emails: string[];
  tokens: string[];
  urls: string[];
  text: fc.Arbitrary<string>;
  /** Values for a named field that reach deep code (e.g. a real PNG data URL for `image`). */
  special?: Record<string, fc.Arbitrary<unknown>>;
}

/** A value that satisfies (or nearly satisfies) a JSON Schema, named fields drawn from the run's real material. */
export function plausible(schema: JsonSchema, material: Material, name = ''): fc.Arbitrary<unknown> {
  if (material.special?.[name]) return material.special[name];
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices?.length) return fc.oneof(...choices.map((choice) => plausible(choice, material, name)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = schema.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties)) model[key] = plausible(value, material, key);
      if (Object.keys(model).length === 0) return fc.constant({});
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in model) });
    }
    case 'array':
      return fc.array(schema.items ? plausible(schema.items, material, name) : hostileJson, {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'integer':
    case 'number':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e9), max: Math.min(schema.maximum ?? 1000, 1e9) });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string': {
      if (schema.format === 'email' || /email/.test(name)) return fc.constantFrom(...material.emails);
      if (/(^|_)ids?$/.test(name)) return fc.constantFrom(...material.ids);
      if (/token/.test(name)) return fc.constantFrom(...material.tokens);
      if (/url/.test(name)) return fc.constantFrom(...material.urls);
      return material.text.filter((text) => text.trim().length >= (schema.minLength ?? 0) && text.length <= (schema.maxLength ?? 200));
    }
    default:
      return hostileJson;
  }
}

type Path = Array<string | number>;

function pathsOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) for (const [index, item] of value.entries()) pathsOf(item, [...path, index], out);
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], out);
  return out;
}

interface Mutation {
  pick: number;
  action: 'replace' | 'delete' | 'add' | 'wrap';
  key: string;
  value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  action: fc.constantFrom('replace', 'replace', 'delete', 'add', 'wrap'),
  key: fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'extra', 'id', 'limit')),
  value: hostileJson,
});

function applyMutation(root: unknown, { pick, action, key, value }: Mutation): unknown {
  const copy = structuredClone(root);
  const paths = pathsOf(copy);
  const path = paths[pick % paths.length];
  if (path.length === 0) return action === 'wrap' ? [copy] : action === 'replace' ? value : copy;
  const parent = path.slice(0, -1).reduce<any>((node, step) => node[step], copy);
  const last = path[path.length - 1];
  if (action === 'replace') parent[last] = value;
  else if (action === 'delete') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
  else if (action === 'wrap') parent[last] = { [key]: parent[last] };
  else if (parent && typeof parent === 'object' && !Array.isArray(parent))
    Object.defineProperty(parent, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** The schema's plausible value with up to three hostile mutations (none a quarter of the time). */
export function mutated(schema: JsonSchema, material: Material): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      plausible(schema, material),
      fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) }),
    )
    .map(([value, mutations]) => mutations.reduce(applyMutation, value));
}
