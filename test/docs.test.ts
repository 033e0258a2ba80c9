import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
/** The single decisions file the per-decision files replaced (spelled apart, so this file does not link it). */
const OLD_DECISIONS = ['docs/decisions', 'md'].join('.');

/** README.md and every markdown file under docs/, as repository paths. */
function markdownFiles(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
  return ['README.md', ...docs.map((file) => path.posix.join('docs', file.split(path.sep).join('/')))];
}

/** The targets of a markdown file's inline links and images, outside code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]);
}

describe('the README and docs/', () => {
  it('README.md has at most 400 lines and links docs/configuration.md and docs/decisions/', () => {
    const readme = read('README.md');
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    assert.ok(lines <= 400, `README.md has ${lines} lines: move a section into docs/ and link it`);
    const targets = linkTargets(readme);
    assert.ok(targets.includes('docs/configuration.md'), 'the README links docs/configuration.md');
    assert.ok(
      targets.some((target) => target.startsWith('docs/decisions/')),
      'the README links docs/decisions/',
    );
  });

  it('every file in docs/decisions/ starts with its title and a Status line, and the index lists it with that status', () => {
    const index = read('docs/decisions/README.md');
    const files = fs.readdirSync(path.join(ROOT, 'docs/decisions')).filter((file) => file !== 'README.md');
    assert.ok(files.length > 30, 'the decisions were split');
    for (const file of files) {
      assert.match(file, /^\d{4}-[a-z0-9-]+\.md$/, `${file}: numbered, lowercase`);
      const [title, blank, status] = read(`docs/decisions/${file}`).split('\n');
      assert.match(title, /^# \S/, `${file} starts with its title`);
      assert.equal(blank, '', `${file}: a blank line after the title`);
      assert.match(status, /^Status: (current|superseded by \S)/, `${file}: a Status line, current or superseded by`);
      const row = index.split('\n').find((line) => line.startsWith(`| ${file.slice(0, 4)} | [`) && line.includes(`](${file})`));
      assert.ok(row, `docs/decisions/README.md lists ${file}`);
      assert.ok(row.includes(`| ${status.slice('Status: '.length)} |`), `the index gives ${file} its status`);
    }
  });

  it(`no file in the repository refers to ${OLD_DECISIONS} any more`, () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .filter((file) => fs.existsSync(path.join(ROOT, file)));
    assert.ok(files.length > 100, 'the tree was listed');
    assert.deepEqual(
      files.filter((file) => fs.readFileSync(path.join(ROOT, file)).toString('latin1').includes(OLD_DECISIONS)),
      [],
    );
  });

  it('every relative link in README.md and docs/**/*.md points to a file that exists', () => {
    const broken = markdownFiles().flatMap((file) =>
      linkTargets(read(file))
        .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
        .map((target) => decodeURIComponent(target.split('#')[0]))
        .filter((target) => !fs.existsSync(path.join(ROOT, path.dirname(file), target)))
        .map((target) => `${file}: ${target}`),
    );
    assert.deepEqual(broken, []);
  });
});
