import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * The browser's scripts are type-checked against the answers the server declares (issue 38): the
 * browser project (api/app/browser/tsconfig.json, checkJs) and the server's code both read the sign
 * link's wire types (activities/signers/wire.ts). Here the compiler runs with that file changed in
 * memory, a field of the sign page's state renamed, and must fail naming the scripts that read the
 * field; unchanged, the browser project checks clean. (The server's side fails on the same change
 * through `satisfies SignState` in activities/signers/state.ts, which the root project checks.)
 */
const STATIC = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(STATIC, '..', '..', '..');
const WIRE = path.join(ROOT, 'activities', 'signers', 'wire.ts');

function parsed(tsconfig: string): ts.ParsedCommandLine {
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    },
  );
  assert.ok(config, tsconfig);
  return config;
}

const parsedOnce = new Map<string, ts.SourceFile>();

/** The errors of `tsconfig`'s program, wire.ts read through `change`. */
function errorsWith(tsconfig: string, change: (wire: string) => string): string[] {
  const config = parsed(tsconfig);
  const host = ts.createCompilerHost(config.options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, fresh) => {
    if (path.resolve(fileName) === WIRE) return ts.createSourceFile(fileName, change(ts.sys.readFile(WIRE) ?? ''), language);
    // The declaration files (TypeScript's libs, the packages' types) are parsed once for every program here.
    const key = `${fileName}\0${JSON.stringify(language)}`;
    const shared = fileName.endsWith('.d.ts') ? parsedOnce.get(key) : undefined;
    if (shared) return shared;
    const file = original(fileName, language, onError, fresh);
    if (file && fileName.endsWith('.d.ts')) parsedOnce.set(key, file);
    return file;
  };
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file ? path.relative(ROOT, diagnostic.file.fileName) : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
  });
}

const BROWSER = path.join(STATIC, 'tsconfig.json');
const unchanged = (wire: string) => wire;
/** The sign page's state renamed: `can_sign` (whether the signer may sign now) becomes `may_sign`. */
const renamed = (wire: string) => {
  assert.match(wire, /\n {2}can_sign: boolean;/);
  return wire.replace(/\n {2}can_sign: boolean;/, '\n  may_sign: boolean;');
};

describe('the browser code is type-checked against the wire types', () => {
  it('typechecks clean as it is', () => {
    assert.deepEqual(errorsWith(BROWSER, unchanged), []);
  });

  it('fails in the sign page scripts when a field of the state answer is renamed', () => {
    const errors = errorsWith(BROWSER, renamed);
    const reading = errors.filter((error) => /^api\/app\/browser\/sign[\w-]*\.js: .*'can_sign'/.test(error));
    assert.ok(reading.length > 0, `expected errors naming can_sign in api/app/browser/sign*.js, got:\n${errors.join('\n')}`);
    // The page reads it where it opens the document and where it lays out the panel.
    const files = new Set(reading.map((error) => error.split(':')[0]));
    assert.ok(files.has('api/app/browser/sign.js'), [...files].join(', '));
    assert.ok(files.has('api/app/browser/sign-panel.js'), [...files].join(', '));
  });
});
