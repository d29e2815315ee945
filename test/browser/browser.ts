import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildTestApp, type TestContext } from '../helpers';

/** Debian's Chromium (`apt-get install -y chromium`); the browser tests skip without it. */
const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `Browser tests skipped: ${CHROMIUM} is absent (install it with: apt-get install -y chromium).`,
  );
}

/** Where the tests save the screenshots docs/portal.md shows. */
const SHOTS = join(import.meta.dirname, '..', '..', 'docs', 'portal');

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Portal {
  ctx: TestContext;
  base: string;
  browser: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** A Kolli listening on a free port (the sandbox, PGlite) and a fresh headless Chromium. */
export async function openPortal(env: Record<string, string> = {}): Promise<Portal> {
  const ctx = await buildTestApp({ env: { KOLLI_WEBHOOK_ALLOW_PRIVATE: '1', ...env } });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const userDataDir = mkdtempSync(join(tmpdir(), 'kolli-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1100, height: 800 },
    acceptDownloads: true,
    locale: 'nb-NO',
    // Not Oslo: the portal shows Oslo's times, and signs Oslo's instants, whatever the browser's zone.
    timezoneId: 'America/New_York',
    // axe-core is injected as an inline script, which the portal's CSP rightly refuses.
    bypassCSP: true,
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(20_000);
  return {
    ctx,
    base,
    browser,
    page,
    async close() {
      await browser.close();
      await ctx.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Signs in with an API key (or, given its id, through the OAuth token flow). */
export async function signIn(page: Page, base: string, key: string, customerNr = '1000', keyId?: string) {
  await page.goto(`${base}/portal/`);
  await page.getByLabel('Kundenummer').fill(customerNr);
  await page.getByLabel('API-nøkkel').fill(key);
  if (keyId) await page.getByLabel('Nøkkel-id (valgfritt)').fill(keyId);
  await page.getByRole('button', { name: 'Logg inn' }).click();
  await page.getByRole('heading', { name: 'Book sending' }).waitFor();
}

/** No serious or critical axe-core violations on the page as it is now. */
export async function expectAccessible(page: Page, what: string) {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `accessibility of ${what}`).toEqual([]);
}

/**
 * The element with the keyboard focus shows a ring of at least 2 px whose colour has WCAG's 3:1
 * contrast (1.4.11) with what the ring is drawn on: the first background found under a point of the
 * ring, which for a positioned element (the skip link) is not its parent's.
 */
export async function expectFocusRingVisible(page: Page, what: string) {
  const ring = await page.evaluate(() => {
    // The page's globals, as far as used here (the tests compile without the DOM library).
    interface Box {
      left: number;
      right: number;
      top: number;
      height: number;
    }
    interface Element {
      matches(selector: string): boolean;
      getBoundingClientRect(): Box;
    }
    type Style = Record<
      'outlineColor' | 'outlineStyle' | 'outlineWidth' | 'outlineOffset' | 'backgroundColor',
      string
    >;
    const { document, getComputedStyle } = globalThis as unknown as {
      document: {
        activeElement: Element | null;
        body: Element;
        elementsFromPoint(x: number, y: number): Element[];
      };
      getComputedStyle(element: Element): Style;
    };
    const el = document.activeElement;
    if (!el || el === document.body || !el.matches(':focus-visible')) return null;
    const style = getComputedStyle(el);
    const rgba = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const opaque = (c: string) => c !== 'transparent' && rgba(c)[3] !== 0;
    const box = el.getBoundingClientRect();
    const out = Number.parseFloat(style.outlineOffset) + Number.parseFloat(style.outlineWidth) / 2;
    const x = box.left - out >= 0 ? box.left - out : box.right + out;
    const under = document
      .elementsFromPoint(x, box.top + box.height / 2)
      .map((e) => getComputedStyle(e).backgroundColor)
      .find(opaque);
    const luminance = (c: string) => {
      const [r = 0, g = 0, b = 0] = rgba(c).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ringLight = luminance(style.outlineColor);
    const underLight = luminance(under ?? 'rgb(255, 255, 255)');
    const ratio = (Math.max(ringLight, underLight) + 0.05) / (Math.min(ringLight, underLight) + 0.05);
    return {
      style: style.outlineStyle,
      width: Number.parseFloat(style.outlineWidth),
      contrast: Math.round(ratio * 100) / 100,
      colours: `${style.outlineColor} on ${under}`,
    };
  });
  expect(ring, `a focus ring on ${what}`).not.toBeNull();
  expect(ring?.style, `the focus ring of ${what}`).not.toBe('none');
  expect(ring?.width, `the focus ring of ${what}`).toBeGreaterThanOrEqual(2);
  expect(ring?.contrast, `the focus ring of ${what} (${ring?.colours})`).toBeGreaterThanOrEqual(3);
}

/**
 * Saves the screenshot docs/portal.md shows when it is missing or when KOLLI_PORTAL_SCREENSHOTS=1
 * (so an ordinary test run leaves the committed images alone).
 */
export async function screenshot(page: Page, name: string) {
  const path = join(SHOTS, `${name}.png`);
  if (existsSync(path) && process.env.KOLLI_PORTAL_SCREENSHOTS !== '1') return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path, fullPage: false });
}
