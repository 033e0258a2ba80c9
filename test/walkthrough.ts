import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli';
import { waitFor } from './wait';

/** One step of a doc's walk: a command to paste, or a `NAME=…` line (a value the reader copies from the answer above it). */
export type WalkStep = { kind: 'command'; text: string } | { kind: 'assign'; name: string; line: string };

const ASSIGNMENT = /^([A-Z][A-Z0-9_]*)=\S*…\s*(#.*)?$/;

/** The steps of the sh blocks in a Markdown section (from its `## ` heading to the next): continued lines and here-documents joined. */
export function walkSteps(markdown: string, heading: string): WalkStep[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `no section "## ${heading}"`);
  const next = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  const steps: WalkStep[] = [];
  for (const [, block] of section.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    const lines = block.split('\n');
    for (let index = 0; index < lines.length; index += 1) {
      let text = lines[index];
      if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
      const assigned = ASSIGNMENT.exec(text);
      if (assigned) {
        steps.push({ kind: 'assign', name: assigned[1], line: text });
        continue;
      }
      while (text.endsWith('\\') && index + 1 < lines.length) text = `${text}\n${lines[++index]}`;
      const heredoc = /<<-?\s*'?(\w+)'?/.exec(text);
      if (heredoc) {
        do text = `${text}\n${lines[++index]}`;
        while (index < lines.length - 1 && lines[index] !== heredoc[1]);
        assert.equal(lines[index], heredoc[1], `here-document ${heredoc[1]} is not closed in:\n${text}`);
      }
      steps.push({ kind: 'command', text });
    }
  }
  return steps;
}

export interface Ran {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as JSON, when it is a JSON document. */
  json: any;
}

/**
 * A doc's walk, followed in order as a reader follows it: each command runs as written in bash at the
 * checkout (only `localhost:3000` becomes the port the test's service listens on), with the values
 * the reader would have copied for its `NAME=…` lines. A step taken out of the doc's order fails, and
 * `done()` fails while a step is left, so the doc and its test cannot drift apart.
 */
export class Walk {
  readonly steps: WalkStep[];
  private position = 0;
  private readonly values: Record<string, string> = {};
  /** Files the walk's commands wrote in the checkout, removed by cleanUp(). */
  private readonly written = new Set<string>();

  constructor(
    file: string,
    heading: string,
    private readonly options: { env: NodeJS.ProcessEnv; port: number },
  ) {
    this.steps = walkSteps(fs.readFileSync(path.join(ROOT, file), 'utf8'), heading);
  }

  private next(): WalkStep {
    const step = this.steps[this.position];
    assert.ok(step, 'the walk has no step left');
    this.position += 1;
    return step;
  }

  /** The reader copies a value: the next step must be the line `name=…`. */
  take(name: string, value: unknown): string {
    assert.equal(typeof value, 'string', `${name}: no value to copy (${JSON.stringify(value)})`);
    const step = this.next();
    assert.deepEqual(step.kind === 'assign' ? step.name : step, name, `the walk copies ${name} here`);
    this.values[name] = value as string;
    return value as string;
  }

  /** Runs the next step, which must be a command matching `pattern`; fails unless it exits 0. */
  async run(pattern: RegExp): Promise<Ran> {
    const step = this.next();
    assert.equal(step.kind, 'command', `the walk runs a command matching ${pattern} here, not ${JSON.stringify(step)}`);
    const command = (step as { text: string }).text;
    assert.match(command, pattern);
    for (const [, name] of command.matchAll(/-o (\S+)/g)) this.written.add(path.join(ROOT, name));
    const ran = await this.shell(command.replaceAll('localhost:3000', `localhost:${this.options.port}`));
    assert.equal(ran.code, 0, `${command}\nexited ${ran.code}\n${ran.stdout}\n${ran.stderr}`);
    return ran;
  }

  private shell(command: string): Promise<Ran> {
    return new Promise((resolve) => {
      execFile(
        'bash',
        ['-c', command],
        { cwd: ROOT, env: { ...this.options.env, ...this.values }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          let json: any;
          try {
            json = JSON.parse(stdout);
          } catch {
            json = undefined;
          }
          resolve({ command, code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, json });
        },
      );
    });
  }

  /** Every step of the doc was taken. */
  done(): void {
    assert.deepEqual(this.steps.slice(this.position), [], 'steps of the walk the test did not take');
  }

  cleanUp(): void {
    for (const file of this.written) fs.rmSync(file, { force: true });
  }
}

export interface PrintedMail {
  to: string;
  subject: string;
  text: string;
}

/** The mails `npm start` printed on its console (no SMTP_URL), in order. */
export function printedMails(stdout: string): PrintedMail[] {
  return [...stdout.matchAll(/\n--- mail to (\S+) \(no SMTP_URL\) ---\nSubject: (.*)\n\n([\s\S]*?)\n---\n/g)].map(
    ([, to, subject, text]) => ({ to, subject, text }),
  );
}

/** Reads mails off a console as a person reads their inbox: each mail is taken once, oldest first. */
export class ConsoleInbox {
  private readonly taken = new Set<number>();

  constructor(private readonly stdout: () => string) {}

  async next(to: string, subject: RegExp, timeoutMs = 60_000): Promise<PrintedMail> {
    return waitFor(
      `a mail to ${to} with the subject ${subject}`,
      () => {
        const mails = printedMails(this.stdout());
        const index = mails.findIndex((mail, at) => !this.taken.has(at) && mail.to === to && subject.test(mail.subject));
        if (index < 0) return undefined;
        this.taken.add(index);
        return mails[index];
      },
      timeoutMs,
    );
  }

  /** The code (10 or 6 digits) of the next such mail. */
  async code(to: string, subject: RegExp): Promise<string> {
    const mail = await this.next(to, subject);
    const code = /\b(\d{10}|\d{6})\b/.exec(mail.subject)?.[1] ?? /\b(\d{10}|\d{6})\b/.exec(mail.text)?.[1];
    assert.ok(code, `no code in the mail "${mail.subject}"`);
    return code;
  }
}
