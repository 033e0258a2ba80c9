import { execFile } from 'node:child_process';
import path from 'node:path';

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
    else if (char === '}' && --depth === 0) return JSON.parse(text.slice(start, i + 1));
  }
  return undefined;
}

/** Runs `npm run admin -- <args>` as an operator would, from the project root. */
export function runAdmin(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, json: firstJson(code === 0 ? stdout : stderr) });
    });
  });
}
