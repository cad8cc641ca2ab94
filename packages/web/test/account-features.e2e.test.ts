/**
 * End-to-end tests of two-factor enrolment and sign-in, notifications and community pages, in headless
 * Chromium against a real server (see e2e.test.ts for the set-up they share). Screenshots at 1280 and
 * 375 px go to packages/web/test-results/screenshots/.
 */
import fs from 'node:fs';
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

const NARROW = { width: 375, height: 740 };
const COMMUNITY_ORG = 'org-rdc';
/** A small SVG logo (a blue rounded square with a white "R"). */
const LOGO = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#7048e8"/><text x="32" y="45" font-size="38" font-family="sans-serif" font-weight="700" fill="#fff" text-anchor="middle">R</text></svg>',
).toString('base64')}`;

interface Account {
  id: string;
  username: string;
  password: string;
  client: PanxClient;
}

describe.skipIf(!available)('two-factor, notifications and communities in Chromium', { timeout: 90_000 }, () => {
  let server: TestPlatform;
  let context: BrowserContext;
  let profileDir: string;
  const problems: string[] = [];

  async function account(username: string): Promise<Account> {
    const password = `pw-${username}-secret`;
    const { id } = await server.admin.call('user/new', {
      username,
      email: `${username}@example.org`,
      first: username[0]?.toUpperCase() + username.slice(1),
      last: 'Tester',
      password,
    });
    const { access_token } = await createClient({ baseUrl: server.url, retries: 0 }).call('system/newAuthToken', { username, password });
    return { id, username, password, client: createClient({ baseUrl: server.url, token: access_token, retries: 0 }) };
  }

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

  async function typeCredentials(page: Page, who: Account): Promise<void> {
    await page.getByRole('textbox', { name: 'Username' }).fill(who.username);
    await page.getByRole('textbox', { name: 'Password' }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function signIn(page: Page, who: Account, from = '/panx/home'): Promise<void> {
    await page.goto(`${server.url}${from}`);
    await page.waitForURL(/\/panx\/login\?/);
    await typeCredentials(page, who);
    await page.waitForURL((url) => !url.pathname.startsWith('/panx/login'));
  }

  async function signOut(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/panx\/login\?reason=signed-out/);
  }

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

  /** The base32 key shown beside the QR code (grouped by four for typing). */
  async function shownSecret(page: Page): Promise<string> {
    const text = (await page.getByTestId('otp-secret').textContent()) ?? '';
    return text.replace(/\s/g, '');
  }

  beforeAll(async () => {
    fs.mkdirSync(shotsDir, { recursive: true });
    server = await startTestPlatform(undefined, { webDir, ui: { communityPortalOrgIds: [COMMUNITY_ORG] } });
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

  it('enrols two-factor authentication from account security, then signs in with a TOTP code and with a backup code', async () => {
    const hana = await account('hana');
    const page = await freshPage();
    await signIn(page, hana, '/panx/profile/hana/settings/accountSecurity/twoFactor');
    const section = page.locator('#twoFactor');
    await section.getByText('Off', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Turn on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set up two-factor authentication' });
    await dialog.getByTestId('otp-qr').waitFor();
    const secret = await shownSecret(page);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await shoot(page, 'two-factor-qr');

    const codeBox = dialog.getByRole('textbox', { name: 'Code from the app' });
    await codeBox.fill('000000');
    await dialog.getByRole('button', { name: 'Verify and turn on' }).click();
    await dialog.getByText('The code is not valid', { exact: false }).waitFor();
    await codeBox.fill(totpCode(secret, Date.now()));
    await dialog.getByRole('button', { name: 'Verify and turn on' }).click();
    const codes = dialog.getByTestId('backup-codes');
    await codes.waitFor();
    const backupCodes = (await codes.getByRole('listitem').allTextContents()).map((code) => code.trim());
    expect(backupCodes).toHaveLength(10);
    expect(backupCodes[0]).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    await shoot(page, 'two-factor-backup-codes');
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('panx-backup-codes-hana.txt');
    expect(fs.readFileSync(await download.path(), 'utf8')).toContain(backupCodes[9]);
    expect(await dialog.getByRole('button', { name: 'Done' }).isDisabled()).toBe(true);
    await dialog.getByText('I have saved my backup codes').click();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await section.getByText('On', { exact: true }).waitFor();
    await section.getByText('Backup codes left: 10 of 10.', { exact: false }).waitFor();
    await shoot(page, 'account-security-two-factor');
    expect(await hana.client.call('system/describeTwoFactor', {})).toMatchObject({ enabled: true, backupCodesLeft: 10 });

    // Signing in now asks for the code of the app (computed here from the key the page showed).
    await signOut(page);
    await page.goto(`${server.url}/panx/home`);
    await typeCredentials(page, hana);
    const otp = page.getByRole('textbox', { name: 'One-time code' });
    await otp.fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/panx/home');
    await page.getByRole('heading', { name: 'Welcome back, Hana' }).waitFor();

    // ... or for a backup code, which then works no more.
    await signOut(page);
    await page.goto(`${server.url}/panx/home`);
    await typeCredentials(page, hana);
    await page.getByRole('button', { name: 'Lost your phone? Use a backup code' }).click();
    await page.getByRole('textbox', { name: 'Backup code' }).fill((backupCodes[3] ?? '').toUpperCase());
    await shoot(page, 'login-backup-code');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/panx/home');
    expect(await hana.client.call('system/describeTwoFactor', {})).toMatchObject({ backupCodesLeft: 9 });
    await page.close();
  });

  it('sends a member of an org that requires two-factor authentication to /panx/setup/2fa, and signs them in once set up', async () => {
    const owner = await account('olga');
    const ivan = await account('ivan');
    const { id: org } = await owner.client.call('org/new', { handle: 'secure_lab', name: 'Secure lab' });
    await owner.client.call('org-xxxx/invite', org, { invitee: ivan.id, level: 'MEMBER' });
    await owner.client.call('system/setTwoFactorRequirement', { subject: org, required: true });

    const page = await freshPage();
    await page.goto(`${server.url}/panx/profile/ivan/settings/userAccount`);
    await page.waitForURL(/\/panx\/login\?/);
    await typeCredentials(page, ivan);
    await page.waitForURL(/\/panx\/setup\/2fa\?returnTo=/);
    expect(page.url()).not.toContain('enrolment');
    await page.getByText('Two-factor authentication is required by the policy of org-secure_lab', { exact: false }).waitFor();
    await page.getByTestId('otp-qr').waitFor();
    await shoot(page, 'setup-2fa');
    const secret = await shownSecret(page);
    await page.getByRole('textbox', { name: 'Code from the app' }).fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Verify and turn on' }).click();
    await page.getByTestId('backup-codes').waitFor();
    await shoot(page, 'setup-2fa-backup-codes');
    await page.getByText('I have saved my backup codes').click();
    await page.getByRole('button', { name: 'Continue to Panx' }).click();
    await page.waitForURL('**/panx/profile/ivan/settings/userAccount');
    await page.getByRole('heading', { name: 'Name and e-mail' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('panx.enrolment'))).toBeNull();

    // The policy keeps it on: the account page says so and offers no "Turn off".
    await page.goto(`${server.url}/panx/profile/ivan/settings/accountSecurity/twoFactor`);
    const section = page.locator('#twoFactor');
    await section.getByText('it cannot be turned off', { exact: false }).waitFor();
    expect(await section.getByRole('button', { name: 'Turn off' }).count()).toBe(0);

    // Without a pending enrolment the page explains and offers sign-in.
    const other = await freshPage();
    await other.goto(`${server.url}/panx/setup/2fa`);
    await other.getByText('sign in again to start over', { exact: false }).waitFor();
    await other.close();
    await page.close();
  });

  it('shows notifications in the bell and on the home page after a share and a job-like event, and marks them read', async () => {
    const june = await account('june');
    const kurt = await account('kurt');
    const { id: project } = await kurt.client.call('project/new', { name: 'Trio <WGS> & "family"' });
    const page = await freshPage();
    await page.clock.install();
    await signIn(page, june);
    const home = page.getByRole('region', { name: 'Notifications' });
    await home.getByText('No notifications').waitFor();
    await page.getByRole('region', { name: 'Running executions' }).getByText('Nothing running').waitFor();
    const bell = page.getByRole('button', { name: /^Notifications, / });
    expect(await bell.getAttribute('aria-label')).toBe('Notifications, none unread');

    // Kurt shares a project with June; a job of June's fails (what the engine will report).
    await kurt.client.call('project-xxxx/invite', project, { invitee: june.id, level: 'CONTRIBUTE' });
    await server.platform.services.notifications.executionFinished(
      { id: 'job-000000000000000000000001', name: 'bwa_mem <sample 1>', state: 'failed', project, launchedBy: june.id, failureReason: 'AppError' },
      Date.now(),
    );
    // The next poll (every 30 s) brings them.
    await page.clock.fastForward('00:31');
    await page.getByTestId('notification-count').getByText('2', { exact: true }).waitFor();
    expect(await bell.getAttribute('aria-label')).toBe('Notifications, 2 unread');
    await home.getByText('Kurt Tester shared "Trio <WGS> & "family"" with you (CONTRIBUTE)').waitFor();
    await home.getByText('"bwa_mem <sample 1>" failed: AppError').waitFor();
    expect(await page.locator('b, wgs').count()).toBe(0);
    // The shared project joins the project lists without a reload.
    await page.getByRole('region', { name: 'Recent projects' }).getByRole('link', { name: 'Trio <WGS> & "family"' }).waitFor();
    await shoot(page, 'home-notifications');

    await bell.click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    await panel.getByText('Job failed').waitFor();
    await shoot(page, 'notifications-panel');
    await page.setViewportSize(WIDE);
    if (!(await panel.isVisible())) await bell.click();
    await panel.getByRole('button', { name: /^Unread: Project shared with you/ }).click();
    await page.waitForURL(`**/panx/projects/${project}/data/`);
    await page.getByTestId('notification-count').getByText('1', { exact: true }).waitFor();
    expect((await june.client.call('notifications/get', {})).unreadCount).toBe(1);

    await page.goto(`${server.url}/panx/home`);
    await home.getByRole('button', { name: 'Mark all read' }).click();
    await page.getByTestId('notification-count').waitFor({ state: 'detached' });
    expect((await june.client.call('notifications/get', {})).unreadCount).toBe(0);
    await page.close();
  });

  it('shows a community landing page with its branding, and the platform’s own', async () => {
    const lena = await account('lena');
    await lena.client.call('org/new', { handle: 'rdc', name: 'Rare disease consortium' });
    await server.admin.call('system/newCommunity', {
      handle: 'rdc',
      name: 'Rare Disease Consortium',
      widgets: ['quickActions', 'projects', 'notifications'],
      assets: {
        headerLogo: LOGO,
        description: 'Sharing <b>rare</b> variants between 14 clinical centres.\nData access is reviewed by the committee.',
        navigation: [
          { label: 'Projects', href: '/panx/projects' },
          { label: 'Consortium site', href: 'https://example.org/rdc' },
        ],
        home: {
          headline: 'Welcome to the RDC workspace',
          intro: 'Start from a project, or read how data access works.',
          sections: [
            {
              title: 'Data access',
              body: 'Request access to cohorts through the committee.',
              links: [{ label: 'Access policy', href: 'https://example.org/rdc/policy' }],
            },
            { title: 'Pipelines', body: 'Germline calling with bwa and bcftools.', links: [{ label: 'Tools', href: '/panx/tools' }] },
          ],
        },
      },
    });
    await lena.client.call('project/new', { name: 'RDC cohort 1', billTo: COMMUNITY_ORG });

    const page = await freshPage();
    await signIn(page, lena, '/panx/communities/rdc/home');
    const landing = page.getByTestId('community-home');
    await landing.getByRole('heading', { name: 'Rare Disease Consortium', exact: true }).waitFor();
    await landing.getByText('Sharing <b>rare</b> variants', { exact: false }).waitFor();
    expect(await landing.locator('b').count()).toBe(0);
    expect(await landing.getByRole('img', { name: 'Rare Disease Consortium logo' }).getAttribute('src')).toBe(LOGO);
    const external = landing.getByRole('link', { name: /Consortium site/ });
    expect(await external.getAttribute('rel')).toBe('noopener noreferrer');
    await landing.getByRole('heading', { name: 'Welcome to the RDC workspace' }).waitFor();
    await landing.getByRole('region', { name: 'Projects of Rare Disease Consortium' }).getByRole('link', { name: 'RDC cohort 1' }).waitFor();
    await shoot(page, 'community-home');

    // /communities/{id}/* sets the community context (lena is in org-rdc, a community org): the header shows it.
    await page.goto(`${server.url}/panx/communities/rdc/tools`);
    await page.waitForURL('**/panx/tools');
    const mark = page.locator('header').getByRole('link', { name: 'Rare Disease Consortium' });
    await mark.waitFor();
    await mark.click();
    await page.waitForURL('**/panx/communities/rdc/home');

    // The platform's own community, and an unknown one.
    await page.goto(`${server.url}/panx/communities/panx/home`);
    await page.getByRole('heading', { name: 'Welcome to Panx' }).waitFor();
    await shoot(page, 'community-platform');
    await page.goto(`${server.url}/panx/co/nowhere/home`);
    await page.getByText('The community nowhere could not be found', { exact: false }).waitFor();
    await page.close();
  });
});
