/**
 * End-to-end tests of the web app in headless Chromium (Debian's `chromium`, installed by
 * scripts/ensure-chromium.sh; driven by playwright-core) against a real API server started by the
 * test harness and serving the built app (packages/web/dist, built by `npm test`'s build step).
 * Screenshots of each page at 1280 and 375 px go to packages/web/test-results/screenshots/.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type PanxClient } from '@panx/client';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, WIDE } from './browser.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../server/src/modules/auth/totp.js';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const webDir = path.resolve(here, '..', 'dist');
const shotsDir = path.resolve(here, '..', 'test-results', 'screenshots');
const available = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(webDir, 'index.html'));
if (!available) {
  console.warn(
    `[e2e] skipped: ${fs.existsSync(CHROMIUM) ? '' : `${CHROMIUM} is missing (scripts/ensure-chromium.sh installs it); `}${
      fs.existsSync(path.join(webDir, 'index.html')) ? '' : 'the web app is not built (npm run build)'
    }`,
  );
}

const NARROW = { width: 375, height: 740 };
const OTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

interface Account {
  id: string;
  username: string;
  password: string;
  client: PanxClient;
}

// In CI (.ci/run sets PANX_E2E_REQUIRED) a missing browser or build is a failure, not a skip.
it.runIf(!available && process.env.PANX_E2E_REQUIRED === '1')('has Chromium and the built web app for the end-to-end suite', () => {
  expect({ chromium: fs.existsSync(CHROMIUM), webBuild: fs.existsSync(path.join(webDir, 'index.html')) }).toEqual({ chromium: true, webBuild: true });
});

describe.skipIf(!available)('web app in Chromium', { timeout: 60_000 }, () => {
  let server: TestPlatform;
  let context: BrowserContext;
  let profileDir: string;
  let alice: Account;
  let project: { id: string; name: string };

  async function account(username: string, options: { securityLevel?: 'high' | 'normal' | 'low' } = {}): Promise<Account> {
    const password = `pw-${username}-secret`;
    const { id } = await server.admin.call('user/new', {
      username,
      email: `${username}@example.org`,
      first: username[0]?.toUpperCase() + username.slice(1),
      last: 'Tester',
      password,
    });
    if (options.securityLevel) await server.admin.call('user-xxxx/update', id, { securityLevel: options.securityLevel });
    const anonymous = createClient({ baseUrl: server.url, retries: 0 });
    const { access_token } = await anonymous.call('system/newAuthToken', { username, password });
    return { id, username, password, client: createClient({ baseUrl: server.url, token: access_token, retries: 0 }) };
  }

  /** Uncaught exceptions and Content-Security-Policy violations of any page: there must be none. */
  const problems: string[] = [];

  /** A new tab with no stored session. */
  async function freshPage(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) problems.push(`${page.url()}: ${message.text()}`);
    });
    await page.setViewportSize(WIDE);
    await page.goto(`${server.url}/error/error.html`);
    await page.evaluate(() => {
      localStorage.clear();
      sessionStorage.clear();
    });
    return page;
  }

  async function signIn(page: Page, who: Account, from = '/panx/home'): Promise<void> {
    await page.goto(`${server.url}${from}`);
    await page.waitForURL(/\/panx\/login\?/);
    await page.getByRole('textbox', { name: 'Username' }).fill(who.username);
    await page.getByRole('textbox', { name: 'Password' }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/panx/login'));
  }

  /** Screenshots at 1280 and 375 px (full page), then back to 1280. */
  async function shoot(page: Page, name: string): Promise<void> {
    await page.mouse.move(0, 0);
    for (const size of [WIDE, NARROW]) {
      await page.setViewportSize(size);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(150);
      await page.screenshot({ path: path.join(shotsDir, `${name}-${size.width}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDE);
  }

  const pathOf = (page: Page) => {
    const url = new URL(page.url());
    return `${url.pathname}${url.search}`;
  };

  beforeAll(async () => {
    fs.mkdirSync(shotsDir, { recursive: true });
    server = await startTestPlatform(undefined, { webDir });
    alice = await account('alice');
    project = { name: '<b>Genomes</b> & "co"', id: '' };
    project.id = (await alice.client.call('project/new', { name: project.name })).id;
    await alice.client.call('project/new', { name: 'Exomes 2026' });
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: WIDE,
      args: CHROMIUM_ARGS,
    });
  });

  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await context?.close();
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
    await server?.close();
  });

  it('sends a visitor to sign-in and back to the page they asked for', async () => {
    const page = await freshPage();
    await page.goto(`${server.url}/panx/profile/alice/settings/userAccount`);
    await page.waitForURL(/\/panx\/login\?returnTo=/);
    expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/panx/profile/alice/settings/userAccount');
    await shoot(page, 'login');

    await page.getByRole('textbox', { name: 'Username' }).fill('alice');
    await page.getByRole('textbox', { name: 'Password' }).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not sign in' }).waitFor();

    await page.getByRole('textbox', { name: 'Password' }).fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/panx/profile/alice/settings/userAccount');
    await page.getByRole('heading', { name: 'Name and e-mail' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'E-mail address' }).inputValue()).toBe('alice@example.org');
    // The session survives a reload (restored from storage) and no token appears in the URL.
    await page.reload();
    await page.getByRole('heading', { name: 'Name and e-mail' }).waitFor();
    expect(page.url()).not.toContain('token');
    await shoot(page, 'profile-user-account');
    await page.close();
  });

  it('asks for the one-time code when the account has two-factor authentication', async () => {
    const bob = await account('bob');
    await server.platform.stores.users.update(bob.id, { otpSecret: OTP_SECRET, otpEnabled: 1 });
    const page = await freshPage();
    await page.goto(`${server.url}/panx/home`);
    await page.getByRole('textbox', { name: 'Username' }).fill('bob');
    await page.getByRole('textbox', { name: 'Password' }).fill(bob.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByRole('textbox', { name: 'One-time code' });
    await code.waitFor();
    await code.fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('The one-time code is not valid').waitFor();
    await shoot(page, 'login-otp');
    await code.fill(totpCode(OTP_SECRET, Date.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/panx/home');
    await page.getByRole('heading', { name: 'Welcome back, Bob' }).waitFor();
    await page.close();
  });

  it('shows recent projects with escaped names, and keeps favourites in the session data', async () => {
    const page = await freshPage();
    const scripts = new Set<string>();
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/panx/assets/') && url.pathname.endsWith('.js')) scripts.add(url.pathname);
    });
    await signIn(page, alice);
    await page.getByRole('heading', { name: 'Welcome back, Alice' }).waitFor();
    const link = page.getByRole('link', { name: project.name });
    await link.waitFor();
    expect(await page.locator('b', { hasText: 'Genomes' }).count()).toBe(0);
    await page.getByRole('button', { name: `Add ${project.name} to favourites` }).click();
    await page
      .getByRole('button', { name: `Remove ${project.name} from favourites` })
      .first()
      .waitFor();
    const favourites = page.getByRole('region', { name: 'Favourite projects' });
    await favourites.getByRole('link', { name: project.name }).waitFor();
    const described = await alice.client.call('user-xxxx/describe', alice.id, { fields: { sessionData: true } });
    expect(described.sessionData).toMatchObject({ favorites: { projects: [project.id] } });
    await shoot(page, 'home');

    // Time from navigation to the home page's first content (the issue's benchmark asks for ≤ 1 s; logged, not asserted).
    await page.goto(`${server.url}/panx/home`);
    await page.getByRole('heading', { name: 'Recent projects' }).waitFor();
    const firstContentMs = await page.evaluate(() => performance.now());
    console.log(`[e2e] navigation to the home page's first content: ${Math.round(firstContentMs)} ms`);

    // The issue's budget: the home page's JavaScript is at most 250 KB gzip (the sign-in page's included).
    const gzipBytes = [...scripts].reduce((sum, script) => sum + zlib.gzipSync(fs.readFileSync(path.join(webDir, script.replace('/panx/', '')))).length, 0);
    console.log(`[e2e] home page JavaScript: ${scripts.size} files, ${(gzipBytes / 1024).toFixed(1)} KB gzip`);
    expect(gzipBytes).toBeLessThanOrEqual(250 * 1024);

    await page.getByRole('button', { name: 'New project' }).first().click();
    await page.getByRole('textbox', { name: 'Project name' }).fill('Made in the browser');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('link', { name: 'Made in the browser' }).waitFor();
    await page.close();
  });

  it('resolves the routes of SPEC §2 with their redirect rules', async () => {
    const page = await freshPage();
    await signIn(page, alice);
    const P = project.id;
    const cases: [string, string | RegExp][] = [
      ['/panx', '/panx/home'],
      ['/panx/nowhere/at/all', '/panx/home'],
      [`/panx/projects/${P}`, `/panx/projects/${P}/data/`],
      ['/panx/orgs/org-acme', '/panx/orgs/org-acme/settings'],
      ['/panx/communities/acme', '/panx/communities/acme/home'],
      ['/panx/communities/acme/projects?sort=name', '/panx/projects?sort=name'],
      ['/panx/co/acme', '/panx/co/acme/home'],
      ['/panx/co/acme/tools', '/panx/tools'],
      [`/panx/projects/${P}/cohortBrowser/record-1/somatic`, `/panx/cohort-browser/${P}/record-1/somatic`],
      ['/panx/returnFromBilling?session_id=42', '/panx/profile/alice/settings/billing?session_id=42'],
      ['/panx/datarequests/dtr-1', '/panx/datarequests/dtr-1/info'],
      [`/panx/projects/${P}/monitor/job/job-1/try/007/log`, `/panx/projects/${P}/monitor/job/job-1/try/7/log`],
      [`/panx/projects/${P}/monitor/job/job-1/try/x1`, `/panx/projects/${P}/monitor/job/job-1`],
      ['/panx/search', '/panx/home'],
      ['/panx/sandbox/components', '/panx/home'],
      ['/panx/setup/2fa', '/panx/setup/2fa'],
      ['/panx/tools/run/app-bwa/inputs', '/panx/tools/run/app-bwa/inputs'],
    ];
    for (const [from, to] of cases) {
      await page.goto(`${server.url}${from}`);
      await page.waitForURL((url) => `${url.pathname}${url.search}` === to, { timeout: 10_000 }).catch(() => {});
      expect(pathOf(page), `${from} should end at ${to}`).toBe(to);
    }

    // Pages of later issues say so honestly.
    await page.goto(`${server.url}/panx/orgs`);
    await page.getByTestId('not-available').getByText('not available yet', { exact: false }).first().waitFor();
    expect(await page.locator('[data-page-id="organizations-page"]').count()).toBe(1);
    await shoot(page, 'not-available');

    // ?viewer hides header and footer; the association page hides the header only.
    await page.goto(`${server.url}/panx/orgs?viewer`);
    await page.getByTestId('not-available').waitFor();
    expect(await page.locator('header').count()).toBe(0);
    expect(await page.locator('footer').count()).toBe(0);
    await page.goto(`${server.url}/panx/associate`);
    await page.getByTestId('not-available').waitFor();
    expect(await page.locator('header').count()).toBe(0);
    expect(await page.locator('footer').count()).toBe(1);

    // Layout heights of SPEC §2.
    await page.goto(`${server.url}/panx/home`);
    const header = await page.locator('header').boundingBox();
    const footer = await page.locator('footer').boundingBox();
    expect(header?.height).toBe(48);
    expect(footer?.height).toBe(56);
    await page.close();
  });

  it('sends the browser to the error page when the manifest or the config cannot be loaded', async () => {
    const page = await freshPage();
    await page.route('**/asset/*/config.json', (route) => route.fulfill({ status: 500, contentType: 'text/plain', body: 'broken' }));
    await page.goto(`${server.url}/panx/home`);
    await page.waitForURL('**/error/error.html?**');
    const url = new URL(page.url());
    expect(url.searchParams.get('status')).toBe('500');
    expect(url.searchParams.get('message')).toBe("Couldn't load config");
    await page.getByText("Couldn't load config").waitFor();
    await shoot(page, 'error-config');
    await page.unroute('**/asset/*/config.json');

    await page.route('**/deployManifest.json', (route) => route.fulfill({ status: 404, body: '' }));
    await page.goto(`${server.url}/panx/home`);
    await page.waitForURL('**/error/error.html?**');
    expect(new URL(page.url()).searchParams.get('message')).toBe("Couldn't load manifest");
    await page.unroute('**/deployManifest.json');

    // getUIConfig failing is not fatal: the local config alone is used.
    await page.route('**/system/getUIConfig', (route) => route.fulfill({ status: 503, body: '' }));
    await page.goto(`${server.url}/panx/login`);
    await page.getByRole('heading', { name: 'Sign in to Panx' }).waitFor();
    await page.unroute('**/system/getUIConfig');

    // Maintenance mode from the runtime configuration.
    await page.route('**/system/getUIConfig', async (route) => {
      const response = await route.fetch();
      const config = (await response.json()) as Record<string, unknown>;
      await route.fulfill({ response, json: { ...config, maintenanceWindow: { active: true, message: 'Upgrading the database.' } } });
    });
    await page.goto(`${server.url}/panx/home`);
    await page.waitForURL('**/panx/maintenance');
    await page.getByText('Upgrading the database.').waitFor();
    await shoot(page, 'maintenance');
    await page.close();
  });

  it('creates a project-scoped API token, shows it once, and revokes it', async () => {
    const page = await freshPage();
    await signIn(page, alice, '/panx/profile/alice/settings/accountSecurity/apiTokens');
    const section = page.locator('#apiTokens');
    await section.getByText('No API tokens').waitFor();
    await section.getByRole('button', { name: 'New token' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API token' });
    await dialog.getByRole('textbox', { name: 'Label' }).fill('pipeline on the cluster');
    await dialog.getByText('Selected projects').click();
    await dialog.getByRole('combobox', { name: 'Project 1' }).click();
    await page.getByRole('option', { name: /Exomes 2026/ }).click();
    await dialog.getByRole('combobox', { name: 'Level 1' }).click();
    await page.getByRole('option', { name: 'CONTRIBUTE' }).click();
    await shoot(page, 'api-token-new');
    await dialog.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByTestId('new-token-secret').textContent())?.trim() ?? '';
    expect(secret.length).toBeGreaterThan(20);
    expect(page.url()).not.toContain(secret);

    const scoped = createClient({ baseUrl: server.url, token: secret, retries: 0 });
    expect((await scoped.call('system/whoami', {})).id).toBe(alice.id);
    const listed = await alice.client.call('system/findAuthTokens', { kind: 'api' });
    const exomes = (await alice.client.call('system/findProjects', { name: 'Exomes 2026' })).results[0]?.id ?? '';
    expect(listed.results).toEqual([expect.objectContaining({ label: 'pipeline on the cluster', scope: { projects: { [exomes]: 'CONTRIBUTE' } } })]);

    await page.getByRole('button', { name: 'Done' }).click();
    const row = section.getByRole('row', { name: /pipeline on the cluster/ });
    await row.getByText('Exomes 2026 (CONTRIBUTE)').waitFor();
    await shoot(page, 'account-security');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke this token?' }).getByRole('button', { name: 'Revoke' }).click();
    await section.getByText('No API tokens').waitFor();
    await expect(scoped.call('system/whoami', {})).rejects.toMatchObject({ type: 'InvalidAuthentication' });
    await page.close();
  });

  it('sends the user to sign-in when the session is revoked elsewhere, then back', async () => {
    const page = await freshPage();
    await signIn(page, alice, '/panx/profile/alice/settings/billing');
    await page.getByTestId('bill-to').waitFor();
    await shoot(page, 'profile-billing');
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('panx.session') ?? '{}') as { tokenId?: string });
    expect(stored.tokenId).toMatch(/^token-/);
    await alice.client.call('system/destroyAuthToken', { tokenId: stored.tokenId });

    await page.goto(`${server.url}/panx/home`);
    await page.waitForURL(/\/panx\/login\?.*reason=expired/);
    await page.getByTestId('login-reason').getByText('Your session has ended').waitFor();
    await page.getByRole('textbox', { name: 'Username' }).fill('alice');
    await page.getByRole('textbox', { name: 'Password' }).fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/panx/home');
    await page.close();
  });

  it('warns before a high-security session ends, counts down, and signs out at zero', async () => {
    const carol = await account('carol', { securityLevel: 'high' });
    const page = await freshPage();
    await page.clock.install();
    await signIn(page, carol);
    await page.getByRole('heading', { name: 'Welcome back, Carol' }).waitFor();

    // 13 minutes without activity: the warning with its 2-minute countdown.
    await page.clock.fastForward('13:01');
    const warning = page.getByRole('dialog', { name: 'Your session is about to end' });
    await warning.waitFor();
    expect(await page.getByTestId('session-countdown').textContent()).toMatch(/^1:5\d$/);
    await shoot(page, 'session-warning');
    await warning.getByRole('button', { name: 'Stay signed in' }).click();
    await warning.waitFor({ state: 'hidden' });

    // Inactive again until the end: back to sign-in, keeping the page to return to.
    await page.clock.fastForward('13:01');
    await warning.waitFor();
    await page.clock.fastForward('02:01');
    await page.waitForURL(/\/panx\/login\?.*reason=expired/);
    expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/panx/home');
    await page.close();
  });

  it('saves the user account, session-data fields and SSH key through the API', async () => {
    const erin = await account('erin');
    const page = await freshPage();
    await signIn(page, erin, '/panx/profile/erin/settings/userAccount');
    await page.getByRole('textbox', { name: 'Institution' }).fill('Institut <Pasteur>');
    await page.getByRole('textbox', { name: 'Job title' }).fill('Bioinformatician');
    await page.getByRole('combobox', { name: 'Country' }).fill('Fran');
    await page.getByRole('option', { name: 'France' }).click();
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Your profile was saved.').waitFor();
    await page.getByRole('textbox', { name: 'Last name' }).fill('Example');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Your name and e-mail address were saved.').waitFor();
    const described = await erin.client.call('user-xxxx/describe', erin.id, {});
    expect(described.last).toBe('Example');
    expect(described.sessionData).toMatchObject({
      institution: 'Institut <Pasteur>',
      jobTitle: 'Bioinformatician',
      countryCode: 'FR',
      receivePlatformEmail: true,
    });

    await page.goto(`${server.url}/panx/profile/erin/settings/accountSecurity/ssh`);
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFvtEzk2h0b4Z3Ah5qGQ7X2Gv2Q2qJt1wX4Zr8Qv6Jx1 erin@laptop';
    await page.getByRole('textbox', { name: 'Public key' }).fill('-----BEGIN OPENSSH PRIVATE KEY-----');
    await page.getByRole('textbox', { name: 'Public key' }).blur();
    await page.getByText('This is a private key').waitFor();
    await page.getByRole('textbox', { name: 'Public key' }).fill(key);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText('SSH public key saved.').waitFor();
    expect((await erin.client.call('user-xxxx/describe', erin.id, {})).sshPublicKey).toBe(key);
    await page.close();
  });

  it('signs every session out after a password change and signs in with the new password', async () => {
    const dave = await account('dave');
    const page = await freshPage();
    await signIn(page, dave, '/panx/profile/dave/settings/accountSecurity/password');
    await page.getByRole('textbox', { name: 'Current password' }).fill(dave.password);
    await page.getByRole('textbox', { name: 'New password', exact: true }).fill('a-brand-new-password');
    await page.getByRole('textbox', { name: 'Confirm new password' }).fill('a-brand-new-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/\/panx\/login\?.*reason=password-changed/);
    await page.getByTestId('login-reason').getByText('Your password was changed').waitFor();
    await expect(dave.client.call('system/whoami', {})).rejects.toMatchObject({ type: 'InvalidAuthentication' });
    await page.getByRole('textbox', { name: 'Username' }).fill('dave');
    await page.getByRole('textbox', { name: 'Password' }).fill('a-brand-new-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/panx/profile/dave/settings/accountSecurity/password');
    await page.close();
  });

  it('asks a provisioned user to accept the installation’s terms once (SPEC §5)', async () => {
    const frank = await account('frank');
    const page = await freshPage();
    await page.route('**/system/getUIConfig', async (route) => {
      const response = await route.fetch();
      const config = (await response.json()) as Record<string, unknown>;
      await route.fulfill({
        response,
        json: { ...config, legalTerms: { version: '2026-11', text: 'Use this platform for research only.\n<script>not run</script>' } },
      });
    });
    await signIn(page, frank);
    const dialog = page.getByRole('dialog', { name: 'Terms of use' });
    await dialog.getByText('<script>not run</script>', { exact: false }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Accept' }).isDisabled()).toBe(true);
    await shoot(page, 'legal-terms');
    await dialog.getByText('I have read and accept the terms of use').click();
    await dialog.getByRole('button', { name: 'Accept' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const described = await frank.client.call('user-xxxx/describe', frank.id, { fields: { sessionData: true } });
    expect(described.sessionData).toMatchObject({ acceptedLegalTerms: { version: '2026-11' } });
    await page.reload();
    await page.getByRole('heading', { name: 'Welcome back, Frank' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Terms of use' }).count()).toBe(0);
    await page.close();
  });

  it('asks a self-registered user without an organization about themselves once (SPEC §6)', async () => {
    const gina = await account('gina');
    await server.platform.stores.users.update(gina.id, { createdBy: gina.id });
    server.platform.services.auth.invalidateCache();
    const page = await freshPage();
    await signIn(page, gina);
    const dialog = page.getByRole('dialog', { name: 'Tell us about yourself' });
    await dialog.getByRole('textbox', { name: 'Institution' }).fill('Wellcome Sanger Institute');
    await shoot(page, 'user-info');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const described = await gina.client.call('user-xxxx/describe', gina.id, { fields: { sessionData: true } });
    expect(described.sessionData).toMatchObject({ institution: 'Wellcome Sanger Institute', userInfoPrompted: true });
    await page.close();
  });

  it('signs out from the account menu', async () => {
    const page = await freshPage();
    await signIn(page, alice);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('panx.session') ?? '{}') as { token?: string });
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/panx\/login\?reason=signed-out/);
    await page.getByText('You have signed out.').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('panx.session'))).toBeNull();
    const revoked = createClient({ baseUrl: server.url, token: stored.token, retries: 0 });
    await expect(revoked.call('system/whoami', {})).rejects.toMatchObject({ type: 'InvalidAuthentication' });
    await page.close();
  });
});
