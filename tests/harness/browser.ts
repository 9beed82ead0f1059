import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core (Playwright's own browser download cannot work on these machines:
 * no internet). .ci/run installs it before the tests; this is the fallback for a development machine.
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

export type ChromiumStatus = { available: true } | { available: false; reason: string };

/**
 * Makes sure Chromium is there, installing Debian's package when it is missing and we are root. Parallel test
 * files serialize on a lock directory so apt-get runs once. In CI (CI=true) a missing browser is an error, never a
 * skip: the browser tests are part of what CI proves.
 */
export function ensureChromium(): ChromiumStatus {
  if (existsSync(CHROMIUM_PATH)) return { available: true };
  const lock = join(tmpdir(), 'clarion-chromium-install.lock');
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) return unavailable('timed out waiting for another test process to install Chromium');
      spawnSync('sleep', ['1']);
    }
  }
  try {
    if (existsSync(CHROMIUM_PATH)) return { available: true };
    if (process.getuid?.() !== 0) return unavailable(`${CHROMIUM_PATH} is missing and only root can install it: run "apt-get install -y chromium"`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update', '-qq'], { env, encoding: 'utf8', timeout: 5 * 60_000 });
    const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { env, encoding: 'utf8', timeout: 10 * 60_000 }) : update;
    if (install.status !== 0 || !existsSync(CHROMIUM_PATH)) {
      return unavailable(`"apt-get install chromium" failed: ${(install.stderr || install.error?.message || '').trim().slice(0, 500)}`);
    }
    return { available: true };
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function unavailable(reason: string): ChromiumStatus {
  const message = `Chromium for the browser tests is not available: ${reason}.`;
  if (process.env.CI === 'true') throw new Error(`${message} CI requires it (.ci/run installs it).`);
  console.warn(`${message} Skipping the browser tests.`);
  return { available: false, reason: message };
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
}

/**
 * Web-first assertions for playwright-core, which has no `expect` of its own (that is @playwright/test): each waits
 * until the page shows what is asserted, up to `timeoutMs`, then fails with what it saw.
 */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export async function seeText(locator: Locator, text: string): Promise<void> {
  await eventually(async () => {
    const seen = (await locator.allTextContents()).join(' | ');
    if (!seen.includes(text)) throw new Error(`expected the page to show "${text}"; it shows: ${seen.slice(0, 500) || '(nothing)'}`);
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
      const active = await locator.page().evaluate(() => ((globalThis as any).document.activeElement?.outerHTML as string | undefined)?.slice(0, 200) ?? 'nothing');
      throw new Error(`expected focus on ${locator}; it is on ${active}`);
    }
  });
}
