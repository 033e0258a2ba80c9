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

/** Collects a page's uncaught errors and CSP violations into `problems` (each prefixed with `who`): every page must run clean under its CSP. */
export function watchProblems(page: Page, problems: string[], who?: string): void {
  const tagged = (text: string) => (who ? `${who}: ${text}` : text);
  page.on('pageerror', (error) => problems.push(tagged(error.message)));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(tagged(message.text()));
  });
}
