import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where the system Chromium is; CHROMIUM_PATH names another one. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A real headless Chromium for a test file: one per file, a new context per signer, closed in after(). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // Containers run as root without user namespaces; the rest keeps the browser quiet and offline.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** Pages axe-core is auditing right now (assertAccessible). */
const audits = new WeakSet<Page>();

/** Collects a page's uncaught errors and CSP violations into `problems` (each prefixed with `who`): every page must run clean under its CSP. */
export function watchProblems(page: Page, problems: string[], who?: string): void {
  const tagged = (text: string) => (who ? `${who}: ${text}` : text);
  page.on('pageerror', (error) => problems.push(tagged(error.message)));
  page.on('console', (message) => {
    // axe-core sets style attributes while it measures (contrast, scrolling): the page's CSP rightly
    // refuses them, and that is axe's doing, not the page's.
    if (audits.has(page) && /^Applying inline style violates/.test(message.text())) return;
    if (/Content Security Policy/i.test(message.text())) problems.push(tagged(message.text()));
  });
}

/**
 * Runs axe-core (@axe-core/playwright: WCAG 2.x A and AA rules, and axe's best practices) on the page
 * as it stands and fails on any serious or critical violation, naming the rule, its help text and the
 * first elements it found. Answers the number of rules that passed, so a caller can see axe really ran.
 */
export async function assertAccessible(page: Page, what: string): Promise<number> {
  audits.add(page);
  let results: Awaited<ReturnType<AxeBuilder['analyze']>>;
  try {
    results = await new AxeBuilder({ page }).analyze();
    // The CSP reports of axe's own style attributes arrive as console messages: let them come in first.
    await page.evaluate('new Promise((resolve) => setTimeout(resolve, 50))');
  } finally {
    audits.delete(page);
  }
  const blocking = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    blocking.map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}, at ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(' | ')}`,
    ),
    [],
    `${what} (${page.url()}) has serious or critical accessibility violations`,
  );
  assert.ok(results.passes.length > 0, `axe checked nothing on ${what}`);
  return results.passes.length;
}
