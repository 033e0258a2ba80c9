import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/**
 * Which top-level folders each layer may import (docs/architecture.md). A layer never imports one
 * above it (db/ is the lowest: lib/ uses its connection and models, db/ imports nothing of lib/);
 * only entry points (runtime/) import the composition root. Workflows import activities and
 * infrastructure as types only (the workflow bundle must hold no I/O). The rules (activities/)
 * and the API reach Temporal only through the `Workflows` port the rules declare
 * (activities/workflows.ts): from workflows/ they may take types of shared definitions, no values.
 */
const ALLOWED: Record<string, string[]> = {
  lib: ['lib', 'db'],
  db: ['db'],
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

const LAYERS = Object.keys(ALLOWED);
const BROWSER = path.join(ROOT, 'api', 'app', 'browser');

/** Every source file of the project: the layers' .ts (tests aside) and the browser's ES modules. */
function allSources(): string[] {
  const browser = fs.readdirSync(BROWSER).filter((name) => name.endsWith('.js'));
  const layered = LAYERS.filter((layer) => fs.existsSync(path.join(ROOT, layer))).flatMap((layer) => sources(path.join(ROOT, layer)));
  return [...layered, ...browser.map((name) => path.join(BROWSER, name))];
}

function resolveImport(from: string, specifier: string, known: Set<string>): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, '.ts'), path.join(base, 'index.ts')];
  return candidates.find((candidate) => known.has(candidate));
}

/**
 * The import graph: each relative import, static or dynamic, type-only ones included. A circle of
 * type-only imports does nothing at run time, but it is still two modules that each need the other
 * to be read: the shared piece belongs below both, so it counts.
 */
function importGraph(): Map<string, string[]> {
  const files = allSources();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => resolveImport(file, fileName, known))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected groups of `graph` with more than one member or a self-loop (Tarjan): its circles. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) groups.push(group);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups;
}

/** Each import circle (a strongly connected group of files), printed as one path around it. */
export function importCycles(): string[] {
  const graph = importGraph();
  return circles(graph).map((group) => {
    const { route, others } = aroundCircle(graph, new Set(group));
    const names = route.map((file) => path.relative(ROOT, file));
    const rest = others.map((file) => path.relative(ROOT, file));
    return `${names.join(' -> ')}${rest.length > 0 ? ` (also in this circle: ${rest.join(', ')})` : ''}`;
  });
}

/** One path from the group's first member back to itself, within the group (breadth-first, so short), and the members off it. */
function aroundCircle(graph: Map<string, string[]>, group: Set<string>): { route: string[]; others: string[] } {
  const start = [...group].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  let end: string | undefined;
  while (queue.length > 0 && end === undefined) {
    const node = queue.shift() as string;
    for (const target of graph.get(node) ?? []) {
      if (!group.has(target)) continue;
      if (target === start) {
        end = node;
        break;
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  const route = [start];
  for (let node = end; node !== undefined && node !== start; node = previous.get(node)) route.splice(1, 0, node);
  return { route: [...route, start], others: [...group].filter((node) => !route.includes(node)).sort() };
}

/**
 * Each circle among the folders of activities/ (documents -> signing -> documents, or longer), with
 * the file import behind each step: files apart, two folders that need each other are one concept
 * split in two, or share a piece that belongs below both. Its top-level files (the ports) are no folder.
 */
export function folderCycles(): string[] {
  const activities = path.join(ROOT, 'activities');
  const folderOf = (file: string) => {
    const parts = path.relative(activities, file).split(path.sep);
    return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
  };
  const witness = new Map<string, string>();
  const graph = new Map<string, string[]>();
  for (const [file, targets] of [...importGraph()].sort(([a], [b]) => a.localeCompare(b))) {
    const from = folderOf(file);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, []);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === undefined || to === from || witness.has(`${from} ${to}`)) continue;
      witness.set(`${from} ${to}`, `${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)}`);
      graph.get(from)?.push(to);
    }
  }
  return circles(graph).map((group) => {
    const { route, others } = aroundCircle(graph, new Set(group));
    const steps = route.slice(1).map((to, i) => witness.get(`${route[i]} ${to}`));
    return `${route.join(' -> ')}: ${steps.join('; ')}${others.length > 0 ? ` (also in this circle: ${others.join(', ')})` : ''}`;
  });
}

/** Where a request or a rule runs: nothing here waits on another workflow's progress by polling (docs/architecture.md). */
const NO_POLLS = ['activities', 'api'];
/** A helper that polls: a module named for it (lib/poll, test/wait …), or a function that polls (pollUntil, waitForApply …). */
const POLL_MODULE = /(^|\/)(poll|polls|polling|wait|waits-for)(\.ts)?$/;
const POLL_NAME = /\b(poll[A-Z]\w*|waitFor[A-Z]\w*)\b/g;
/** What reads an apply's progress from the database, and what waits a while between two looks. */
const APPLY_READ = /^(applyOutcome|Apply\.query)$/;
const TIMER = /(^|\.)(setTimeout|setInterval|sleep|delay)$/;

/** A loop (for, while, do) in `file` that reads an apply from the database and waits between reads: a poll. */
function applyReadLoops(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const calls = (pattern: RegExp) => {
    const inside = (node: ts.Node): boolean =>
      (ts.isCallExpression(node) && pattern.test(node.expression.getText(source))) || ts.forEachChild(node, inside) === true;
    return inside;
  };
  const readsApply = calls(APPLY_READ);
  const waits = calls(TIMER);
  const visit = (node: ts.Node): void => {
    const loop = ts.isForStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node) || ts.isForOfStatement(node);
    if (loop && readsApply(node) && waits(node)) {
      found.push(`line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: a loop reading an apply between waits`);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every poll of another workflow's progress in activities/ and api/ (tests aside): a poll helper imported or named, or a loop over an apply's row. */
export function polls(): string[] {
  const found: string[] = [];
  for (const layer of NO_POLLS) {
    for (const file of sources(path.join(ROOT, layer))) {
      const text = fs.readFileSync(file, 'utf8');
      const relative = path.relative(ROOT, file);
      const { importedFiles } = ts.preProcessFile(text, true, true);
      for (const { fileName } of importedFiles) if (POLL_MODULE.test(fileName)) found.push(`${relative} imports ${fileName}`);
      for (const name of new Set([...text.matchAll(POLL_NAME)].map((match) => match[1]))) found.push(`${relative} names ${name}`);
      for (const loop of applyReadLoops(file, text)) found.push(`${relative} ${loop}`);
    }
  }
  return found;
}

describe('layers', () => {
  it('no import crosses into a layer above it (surfaces → workflows → activities → lib/db; runtime/ wires them)', () => {
    assert.deepEqual(violations(), []);
  });

  it('no import circle among the source files (.ts and the browser modules; static, dynamic and type-only imports)', () => {
    assert.deepEqual(importCycles(), []);
  });

  it('no two folders of activities/ import each other, directly or around a longer circle (tests aside; type-only imports count)', () => {
    assert.deepEqual(folderCycles(), []);
  });

  it("no rule or API file polls another workflow's progress (no poll helper, no loop over an apply's row): it waits on the workflow", () => {
    assert.deepEqual(polls(), []);
  });
});
