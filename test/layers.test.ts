import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/**
 * Which top-level folders each layer may import (docs/architecture.md). A layer never imports one
 * above it; only entry points (runtime/) import the composition root. Workflows import activities
 * and infrastructure as types only (the workflow bundle must hold no I/O). The rules (activities/)
 * and the API reach Temporal only through the `Workflows` port the rules declare
 * (activities/workflows.ts): from workflows/ they may take types of shared definitions, no values.
 */
const ALLOWED: Record<string, string[]> = {
  lib: ['lib', 'db'],
  db: ['db', 'lib'],
  activities: ['activities', 'lib', 'db'],
  workflows: ['workflows'],
  worker: ['worker', 'activities', 'workflows', 'lib', 'db'],
  api: ['api', 'activities', 'lib', 'db'],
  clients: ['clients'],
  runtime: ['runtime', 'api', 'worker', 'activities', 'workflows', 'lib', 'db', 'clients'],
};
/** Type-only imports beyond ALLOWED: a workflow names its activities' types; a rule may name a shared definition's type. */
const TYPES_ALSO: Record<string, string[]> = { workflows: ['activities', 'lib', 'db'], activities: ['workflows'], api: ['workflows'] };
/**
 * The port's implementation (workflows/client.ts, with the start labels of workflows/labels.ts) is
 * client code beside the workflows: it may use the Temporal client helpers of lib/, and nothing else in
 * workflows/ imports it, so it never enters the bundle.
 */
const CLIENT_SIDE = [path.join('workflows', 'client.ts'), path.join('workflows', 'labels.ts')];

const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'|import\('(\.[^']+)'\)/gm;

function sources(directory: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'static') found.push(...sources(full));
    } else if (/\.(ts|mjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) found.push(full);
  }
  return found;
}

function layerOf(file: string): string {
  return path.relative(ROOT, file).split(path.sep)[0];
}

/** Every import of a source file that crosses into a layer it may not use. */
export function violations(): string[] {
  const found: string[] = [];
  for (const layer of Object.keys(ALLOWED)) {
    const directory = path.join(ROOT, layer);
    if (!fs.existsSync(directory)) continue;
    for (const file of sources(directory)) {
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(IMPORT)) {
        const specifier = match[3] ?? match[4] ?? match[5];
        const typeOnly = Boolean(match[2]) || /^\s*import\s+type\b/.test(match[0]);
        const target = layerOf(path.resolve(path.dirname(file), specifier));
        const relative = path.relative(ROOT, file);
        const resolved = path.relative(ROOT, path.resolve(path.dirname(file), specifier)).replace(/\.ts$/, '');
        const clientSide = CLIENT_SIDE.includes(relative) && target === 'lib';
        const allowed = clientSide || ALLOWED[layer].includes(target) || (typeOnly && (TYPES_ALSO[layer] ?? []).includes(target));
        // Types only, and only of shared definitions: a rule never names a workflow function.
        const workflowCode =
          layer !== 'workflows' &&
          layer !== 'runtime' &&
          layer !== 'worker' &&
          target === 'workflows' &&
          !/\/(shared|wake)(\.ts)?$/.test(specifier);
        const intoBundle =
          layer === 'workflows' && !CLIENT_SIDE.includes(relative) && CLIENT_SIDE.some((side) => resolved === side.replace(/\.ts$/, ''));
        if (!allowed || workflowCode || intoBundle) found.push(`${relative} imports ${specifier}${typeOnly ? ' (types)' : ''}`);
      }
    }
  }
  return found;
}

describe('layers', () => {
  it('no import crosses into a layer above it (surfaces → workflows → activities → lib/db; runtime/ wires them)', () => {
    assert.deepEqual(violations(), []);
  });
});
