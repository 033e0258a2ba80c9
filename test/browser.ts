import { type Browser, chromium } from 'playwright-core';

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
