import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait';

export { waitFor };

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The JSON document the command printed (stdout on success, stderr on failure). */
  json: any;
}

/** The first JSON object in a command's output (npm may print its own warnings around it). */
export function firstJson(text: string): unknown {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}' && --depth === 0) {
      try {
        return JSON.parse(text.slice(start, i + 1));
      } catch {
        return undefined; // braces in a message, not a document
      }
    }
  }
  return undefined;
}

/** Runs `npm run <script> -- <args>` to completion from the project root, as a user would. */
export function runNpm(script: string, args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', script, '--', ...args], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, json: firstJson(code === 0 ? stdout : stderr) });
    });
  });
}

/** `npm run -s admin -- <args>` with the test's environment on top of this process's. */
export function runAdmin(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return runNpm('admin', args, { ...process.env, ...env });
}

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Its stderr alone. */
  errors: () => string;
  /** Its stdout alone. */
  stdout: () => string;
}

/** `npm <args>` in its own process group (as a terminal or an orchestrator runs it), output collected. */
export function spawnNpm(args: string[], env: Record<string, string | undefined>): Spawned {
  const child = spawn('npm', args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let errors = '';
  let stdout = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
    errors += chunk;
  });
  return { child, output: () => output, errors: () => errors, stdout: () => stdout };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  return alive(-pgid);
}

/** Sends a signal to a process group and waits until none of its processes is left. */
export async function stopGroup(pgid: number, signal: NodeJS.Signals, timeoutMs = 30_000): Promise<void> {
  if (!groupAlive(pgid)) return;
  process.kill(-pgid, signal);
  try {
    await waitFor(`process group ${pgid} to exit after ${signal}`, () => !groupAlive(pgid), timeoutMs);
  } catch (error) {
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    throw error;
  }
}
