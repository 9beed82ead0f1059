import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Locator } from 'playwright-core';
import type { ClarionApp } from '../../src/http/app-types.ts';
import { eventually } from './wait-for.ts';

/**
 * Debian's Chromium, driven by playwright-core (Playwright's own browser download cannot work on these machines:
 * no internet). .ci/run installs it before the tests.
 */
export const CHROMIUM_PATH = process.env.CLARION_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Flags for a root, GPU-less, offline machine: without the background-networking ones Chromium keeps trying
 * Google's hosts, and its refused connections slow every start (node-svc machine notes).
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Fails the browser tests, with what to do, when there is no Chromium at CHROMIUM_PATH. The tests never install it
 * themselves (that needs root and the network, and would run apt-get in the middle of a test run): `.ci/run`
 * installs Debian's package before the tests, and a development machine does it once with `apt-get install chromium`.
 * A missing browser is never a skip: the dashboard tests are part of what the suite proves.
 */
export function requireChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  throw new Error(
    `Chromium for the browser tests is missing at ${CHROMIUM_PATH}: install it with "apt-get install -y chromium" (.ci/run does) ` +
      'or point CLARION_CHROMIUM at a Chromium binary.',
  );
}

/** Where the browser tests save a screenshot of what they show (kept as CI artifacts). */
export const SCREENSHOTS = 'test-results/screenshots';

/**
 * What every browser test starts with: Chromium present (or a failure that says how to get it), the screenshot
 * folder, the app listening on a random loopback port, and the browser. Returns the app's base URL and the browser.
 */
/** `port`: where the app listens (0: any free one), e.g. the one its CLARION_BASE_URL names. */
export async function startBrowserOn(app: ClarionApp, port = 0): Promise<{ base: string; browser: Browser }> {
  requireChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  await app.listen({ port, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { base, browser: await launchChromium() };
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
}

// Web-first assertions for playwright-core, which has no `expect` of its own (that is @playwright/test): each waits
// (eventually, tests/harness/wait-for.ts) until the page shows what is asserted, then fails with what it saw.

export async function seeText(locator: Locator, text: string): Promise<void> {
  await eventually(async () => {
    const seen = (await locator.allTextContents()).join(' | ');
    if (!seen.includes(text))
      throw new Error(`expected the page to show "${text}"; it shows: ${seen.slice(0, 500) || '(nothing)'}`);
  });
}

export async function seeAttribute(locator: Locator, name: string, value: string): Promise<void> {
  await eventually(async () => {
    const seen = await locator.getAttribute(name);
    if (seen !== value) throw new Error(`expected ${name}="${value}", got ${JSON.stringify(seen)}`);
  });
}

export async function seeFocused(locator: Locator): Promise<void> {
  await eventually(async () => {
    // These run in the page; the project's TypeScript has no DOM types, hence the any.
    if (!(await locator.evaluate((element) => element === (globalThis as any).document.activeElement))) {
      const active = await locator
        .page()
        .evaluate(
          () =>
            ((globalThis as any).document.activeElement?.outerHTML as string | undefined)?.slice(0, 200) ?? 'nothing',
        );
      throw new Error(`expected focus on ${locator}; it is on ${active}`);
    }
  });
}
