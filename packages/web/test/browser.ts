/**
 * What every browser end-to-end suite needs: headless Chromium with a throwaway profile, accounts that
 * sign in through the login page, screenshots at the two widths of the design, and a collector of
 * page errors and CSP violations that a suite checks after each test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type PanxClient } from '@panx/client';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { TestPlatform } from '../../server/test/harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The web build the suites serve: packages/web/dist, or PANX_E2E_WEB_DIR (iterating on a build of one's own). */
export const webDir = process.env.PANX_E2E_WEB_DIR ?? path.resolve(here, '..', 'dist');
export const shotsDir = path.resolve(here, '..', 'test-results', 'screenshots');
export const CHROMIUM = process.env.PANX_CHROMIUM ?? '/usr/bin/chromium';
/** Browser suites run when Chromium and a built web app are present (CI requires both: PANX_E2E_REQUIRED=1). */
export const browserAvailable = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(webDir, 'index.html'));
export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 375, height: 740 };
/**
 * Headless Chromium as a root CI container runs it: no sandbox, no GPU, no background traffic. A JSON
 * file, so that the browser benches (plain .mjs, bench/lib.mjs) launch it the same way.
 */
export const CHROMIUM_ARGS = JSON.parse(fs.readFileSync(path.join(here, 'chromium-args.json'), 'utf8')) as string[];

export interface Account {
  id: string;
  username: string;
  password: string;
  client: PanxClient;
}

/** A new user with a known password and an API client signed in as them. */
export async function createAccount(server: TestPlatform, username: string): Promise<Account> {
  const password = `pw-${username}-secret`;
  const { id } = await server.admin.call('user/new', { username, email: `${username}@example.org`, first: username, last: 'Tester', password });
  const anonymous = createClient({ baseUrl: server.url, retries: 0 });
  const { access_token } = await anonymous.call('system/newAuthToken', { username, password });
  return { id, username, password, client: createClient({ baseUrl: server.url, token: access_token, retries: 0 }) };
}

export interface Browser {
  context: BrowserContext;
  /** Page errors and CSP violations seen so far; a suite expects it empty after each test. */
  problems: string[];
  /** A new tab signed in as `who` through the login page, then at `to` (a path under the server). */
  signedInPage(who: Account, to: string): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(server: TestPlatform, name: string): Promise<Browser> {
  fs.mkdirSync(shotsDir, { recursive: true });
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), `panx-chromium-${name}-`));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: WIDE,
    acceptDownloads: true,
    args: CHROMIUM_ARGS,
  });
  const problems: string[] = [];
  return {
    context,
    problems,
    async signedInPage(who, to) {
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) problems.push(`${page.url()}: ${message.text()}`);
      });
      await page.setViewportSize(WIDE);
      await page.goto(`${server.url}/error/error.html`);
      await page.evaluate(() => localStorage.clear());
      await page.goto(`${server.url}${to}`);
      await page.waitForURL(/\/panx\/login\?/);
      await page.getByRole('textbox', { name: 'Username' }).fill(who.username);
      await page.getByRole('textbox', { name: 'Password' }).fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/panx/login'));
      return page;
    },
    async close() {
      await context.close();
      fs.rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

/** Full-page screenshots at 1280 and 375 px: test-results/screenshots/<name>-<width>.png. */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(0, 0);
  for (const size of [WIDE, NARROW]) {
    await page.setViewportSize(size);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(250);
    await page.screenshot({ path: path.join(shotsDir, `${name}-${size.width}.png`), fullPage: true });
  }
  await page.setViewportSize(WIDE);
}
