import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildSampleNda } from '../../lib/pdf/samples';
import { developmentSealer } from '../../lib/pdf/sealer';
import { ROOT } from '../../test/cli';
import { seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { freePort } from '../../test/ports';
import { principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { completedPdf, tampered } from '../../test/verify';

const BIN = path.join(ROOT, 'clients', 'cli', 'bin', 'svc.js');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `svc …` as a user runs it: its own process, its own environment (no key unless given), output piped. */
function svc(args: string[], env: Record<string, string> = {}, command = [process.execPath, BIN]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command[0],
      [...command.slice(1), ...args],
      { cwd: os.tmpdir(), env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The same in a pseudo-terminal (util-linux `script`), where a progress bar belongs; answers what the terminal showed. */
function svcInTerminal(args: string[], env: Record<string, string>): Promise<Ran> {
  const quoted = [process.execPath, BIN, ...args].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  return svc(['-qfec', quoted, '/dev/null'], env, ['script']);
}

describe('the svc CLI, run as a user runs it', () => {
  let stack: Stack;
  let account: Account;
  let email: string;
  let env: Record<string, string>;
  let scratch: string;

  before(async () => {
    // On a port of its own, so the download links it mints (SVC_PUBLIC_URL) point at itself.
    stack = await startStack({ port: await freePort(), env: { SVC_APPLY_WAIT_MS: '30000' } });
    account = await createAccount(stack.deps.db, { plan: 'business', name: 'Cleo Cli' });
    email = (await principalOf(stack, account)).email;
    env = { SVC_API_KEY: account.key, SVC_BASE_URL: stack.url };
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-test-'));
  });
  after(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('--help everywhere (exit 0); an unknown command or a missing argument is a usage error (exit 2)', async () => {
    const help = await svc(['--help']);
    assert.equal(help.code, 0, help.stderr);
    for (const group of ['me', 'docs', 'templates', 'contacts', 'offers', 'assets', 'drive', 'transfers', 'webhooks', 'login'])
      assert.match(help.stdout, new RegExp(`\\b${group}\\b`), group);
    const docs = await svc(['docs', '--help']);
    assert.equal(docs.code, 0);
    for (const command of ['list', 'get', 'create', 'send', 'download', 'request-sign', 'sign'])
      assert.match(docs.stdout, new RegExp(`\\b${command}\\b`));
    const transfers = await svc(['transfers', '--help']);
    for (const command of ['create', 'offer', 'claim', 'accept', 'download', 'cancel', 'list', 'get'])
      assert.match(transfers.stdout, new RegExp(`\\b${command}\\b`));
    assert.equal((await svc(['transfers', 'create', '--help'])).code, 0);

    const unknown = await svc(['nope'], env);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /unknown command/);
    const missing = await svc(['docs', 'get'], env);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /missing required argument/);
    const option = await svc(['docs', 'list', '--limit', 'many'], env);
    assert.equal(option.code, 2, option.stderr);
    const version = await svc(['--version']);
    assert.deepEqual([version.code, version.stdout.trim()], [0, '0.3.0']);
  });

  it('takes its key from the environment or from --api-key/--base-url; prints a table, or JSON with --json', async () => {
    const readable = await svc(['me'], env);
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(readable.stdout, new RegExp(email.replace(/[.]/g, '\\.')));
    assert.throws(() => JSON.parse(readable.stdout), 'the readable output is not JSON');

    const json = await svc(['me', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).principal.email, email);

    const flags = await svc(['--api-key', account.key, '--base-url', stack.url, 'me', '--json']);
    assert.equal(flags.code, 0, flags.stderr);
    assert.equal(JSON.parse(flags.stdout).principal.email, email);
  });

  it('svc login writes a 0600 config file that later commands use with no key in the environment', async () => {
    const home = fs.mkdtempSync(path.join(scratch, 'home-'));
    const xdg = { XDG_CONFIG_HOME: path.join(home, '.config') };
    const login = await svc(['login', '--key', account.key, '--url', stack.url], xdg);
    assert.equal(login.code, 0, login.stderr);
    const file = path.join(home, '.config', 'svc', 'config.json');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the key is readable by its owner only');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).api_key, account.key);
    const me = await svc(['me', '--json'], xdg);
    assert.equal(me.code, 0, me.stderr);
    assert.equal(JSON.parse(me.stdout).principal.email, email);

    const wrong = await svc(['login', '--key', 'svc_notarealkey0000000000000000000000', '--url', stack.url], {
      XDG_CONFIG_HOME: path.join(home, 'other'),
    });
    assert.equal(wrong.code, 1, 'a key the service refuses is not saved');
    assert.equal(fs.existsSync(path.join(home, 'other', 'svc', 'config.json')), false);
  });

  it('creates a document with an expiry and reminders, reminds its signers now, and voids it', async () => {
    const { nda } = await seedSamples(stack, account);
    const expiresAt = new Date(Date.now() + 2 * 24 * 3600_000).toISOString();
    const signers = ['Ann <ann-cli@example.test>', 'Bob <bob-cli@example.test>'].flatMap((signer) => ['--signer', signer]);
    const usage = await svc(['docs', 'create', '--template', nda.id, '--name', 'x', ...signers, '--remind-every', 'P1D'], env);
    assert.equal(usage.code, 2, usage.stderr);
    const created = await svc(
      ['docs', 'create', '--template', nda.id, '--name', 'CLI waits', ...signers, '--send', '--expires-at', expiresAt].concat([
        '--remind-after',
        'P2D',
        '--remind-every',
        'P1D',
        '--remind-max',
        '3',
        '--json',
      ]),
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const document = JSON.parse(created.stdout);
    assert.equal(document.expires_at, expiresAt);
    assert.deepEqual(document.reminders, { first_after: 'P2D', every: 'P1D', max: 3 });
    const reminded = await svc(['docs', 'remind', document.document_id, '--json'], env);
    assert.equal(reminded.code, 0, reminded.stderr);
    assert.equal(JSON.parse(reminded.stdout).reminded.length, 2);
    const again = await svc(['docs', 'remind', document.document_id], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /rate_limited/);
    const voided = await svc(['docs', 'void', document.document_id, '--reason', 'Replaced'], env);
    assert.equal(voided.code, 0, voided.stderr);
    assert.match(voided.stdout, /voided/);
  });

  it('exit 1 with the error code for an API refusal, exit 3 when the service cannot be reached', async () => {
    const missing = await svc(['docs', 'get', 'doc_doesnotexist'], env);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /not_found/);
    const missingJson = await svc(['docs', 'get', 'doc_doesnotexist', '--json'], env);
    assert.equal(missingJson.code, 1);
    assert.equal(JSON.parse(missingJson.stderr).error.code, 'not_found');

    const badKey = await svc(['me'], { ...env, SVC_API_KEY: 'svc_unknownkey00000000000000000000000' });
    assert.equal(badKey.code, 1, badKey.stderr);
    assert.match(badKey.stderr, /unauthorized/);

    const closed = await svc(['me'], { ...env, SVC_BASE_URL: `http://127.0.0.1:${await freePort()}` });
    assert.equal(closed.code, 3, closed.stderr);
  });

  it('uploads a file, lists the Drive, creates and offers a share transfer, and downloads it byte for byte', async () => {
    const pdf = Buffer.from((await buildSampleNda()).pdf);
    const file = path.join(scratch, 'contract.pdf');
    fs.writeFileSync(file, pdf);

    const uploaded = await svc(['assets', 'upload', file, '--json'], env);
    assert.equal(uploaded.code, 0, uploaded.stderr);
    const [asset] = JSON.parse(uploaded.stdout);
    assert.equal(asset.sha256, sha256(pdf));
    assert.equal(asset.kind, 'pdf');
    assert.equal(uploaded.stderr, '', 'no progress bar when piped');

    const drive = await svc(['drive', 'list', '--json'], env);
    assert.equal(drive.code, 0, drive.stderr);
    assert.ok(JSON.parse(drive.stdout).data.some((item: { drive_file_id: string }) => item.drive_file_id === asset.drive_file_id));

    const created = await svc(
      [
        'transfers',
        'create',
        '--name',
        'CLI package',
        '--file',
        asset.drive_file_id,
        '--recipient',
        'Rita Recipient <rita-cli@example.test>',
        '--json',
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const transfer = JSON.parse(created.stdout);
    assert.equal(transfer.mode, 'share');

    const offered = await svc(['transfers', 'offer', transfer.transfer_id, '--json'], env);
    assert.equal(offered.code, 0, offered.stderr);
    const { recipients } = JSON.parse(offered.stdout);
    assert.match(recipients[0].token, /^svcxfer_/);

    const folder = path.join(scratch, 'downloads');
    fs.mkdirSync(folder);
    const downloaded = await svc(['transfers', 'download', recipients[0].token, '--out', folder, '--json'], env);
    assert.equal(downloaded.code, 0, downloaded.stderr);
    const saved = JSON.parse(downloaded.stdout);
    assert.equal(saved.length, 1);
    assert.ok(fs.readFileSync(saved[0].path).equals(pdf), 'the same bytes');
    assert.equal(saved[0].sha256, sha256(pdf));
  });

  it('draws a progress bar on a terminal and none when piped', async () => {
    const file = path.join(scratch, 'bar.pdf');
    fs.writeFileSync(file, Buffer.from((await buildSampleNda()).pdf));
    const terminal = await svcInTerminal(['assets', 'upload', file], env);
    assert.equal(terminal.code, 0, terminal.stdout + terminal.stderr);
    assert.match(terminal.stdout, /bar\.pdf \[[^\]]*\] 100%/, `the terminal showed:\n${terminal.stdout}`);
    const piped = await svc(['assets', 'upload', file], env);
    assert.equal(piped.code, 0, piped.stderr);
    assert.doesNotMatch(piped.stdout + piped.stderr, /\d+%/);
  });

  it('svc verify FILE prints the report with no key: exit 0 only when valid, 1 when invalid, indeterminate or refused, 2 for a missing file', async () => {
    const help = await svc(['verify', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout.replace(/\s+/g, ' '), /Exit code 0 only when the verdict is valid; 1 when it is invalid or indeterminate/);
    assert.match((await svc(['--help'])).stdout, /\bverify <file>/);

    const completed = await completedPdf(stack);
    const good = path.join(scratch, 'completed.pdf');
    fs.writeFileSync(good, completed.pdf);
    const changed = path.join(scratch, 'changed.pdf');
    fs.writeFileSync(changed, tampered(completed.pdf));
    const keyless = { SVC_BASE_URL: stack.url };

    const json = await svc(['verify', good, '--json'], keyless);
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout);
    assert.equal(report.verdict, 'valid');
    assert.equal(report.valid, true);
    assert.equal(report.issued_by_this_service, true);
    assert.equal(report.document_id, completed.documentId);
    assert.equal(report.sha256, sha256(completed.pdf));
    assert.deepEqual(
      report.signers.map((signer: { email: string; how: string }) => [signer.email, signer.how]),
      completed.signers.map((signer) => [signer.email, signer.how]),
    );
    const readable = await svc(['verify', good], keyless);
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(readable.stdout, /^VALID\n/);
    assert.match(readable.stdout, new RegExp(`document ${completed.documentId}, revision 3 \\(completed\\)`));
    for (const signer of completed.signers) assert.ok(readable.stdout.includes(signer.email), signer.email);
    assert.match(readable.stdout, new RegExp(completed.mandate.id));

    const notValid = await svc(['verify', changed, '--json'], keyless);
    assert.equal(notValid.code, 1, 'not valid: exit 1');
    assert.equal(notValid.stderr, '');
    const refusedReport = JSON.parse(notValid.stdout);
    assert.equal(refusedReport.verdict, 'invalid');
    assert.equal(refusedReport.valid, false);
    assert.equal(refusedReport.issued_by_this_service, false);
    const notValidText = await svc(['verify', changed], keyless);
    assert.equal(notValidText.code, 1);
    assert.match(
      notValidText.stdout,
      /^INVALID\n {2}.*\n {2}- Signature 1 \(certification, field "Seal"\): the signed bytes changed after it was signed/,
    );

    // Another deployment's seal: nothing failed, but its chain ends at no anchor here, and that is no pass either.
    const elsewhere = path.join(scratch, 'elsewhere.pdf');
    fs.writeFileSync(
      elsewhere,
      await (await developmentSealer(fs.mkdtempSync(path.join(scratch, 'pki-')))).seal((await buildSampleNda()).pdf, {
        reason: 'Elsewhere',
      }),
    );
    const indeterminate = await svc(['verify', elsewhere], keyless);
    assert.equal(indeterminate.code, 1, 'indeterminate: exit 1');
    assert.match(indeterminate.stdout, /^INDETERMINATE \(not valid: something could not be established\)\n/);
    assert.match(indeterminate.stdout, /INDETERMINATE NO_CERTIFICATE_CHAIN_FOUND/);

    const text = path.join(scratch, 'notes.txt');
    fs.writeFileSync(text, 'not a PDF at all\n');
    const refused = await svc(['verify', text, '--json'], keyless);
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(JSON.parse(refused.stderr).error.code, 'invalid_pdf');

    const missing = await svc(['verify', path.join(scratch, 'nothere.pdf')], keyless);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no such file: .*nothere\.pdf/);
    const folder = await svc(['verify', scratch], keyless);
    assert.equal(folder.code, 2);
    assert.match(folder.stderr, /not a file/);
    const none = await svc(['verify'], keyless);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /missing required argument/);
  });

  it('installs with npm install -g ./clients/cli and runs as svc', async () => {
    const prefix = fs.mkdtempSync(path.join(scratch, 'global-'));
    const npm = await svc(['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', path.join(ROOT, 'clients', 'cli')], {}, ['npm']);
    assert.equal(npm.code, 0, npm.stderr);
    const installed = await svc(['--version'], {}, [path.join(prefix, 'bin', 'svc')]);
    assert.deepEqual([installed.code, installed.stdout.trim()], [0, '0.3.0'], installed.stderr);
    const me = await svc(['me', '--json'], env, [path.join(prefix, 'bin', 'svc')]);
    assert.equal(me.code, 0, me.stderr);
    assert.equal(JSON.parse(me.stdout).principal.email, email);
  });
});
