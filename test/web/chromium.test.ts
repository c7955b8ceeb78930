/**
 * The web entry in a real browser: headless Chromium (the system's `chromium`,
 * driven by playwright-core) loads a page from 127.0.0.1 whose module, a
 * browser bundle of the packed package, fetches every corpus capture and
 * pipes its body through `new WirefoldStream({ output: 'final' })`. The finals
 * must equal Node's byte for byte (as JSON). Chromium has no Buffer, so this
 * runs the web byte natives (lib/bytes/web.ts) end to end.
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { packed } from '../helpers/packed.js';
import { bundleForBrowser, checkModule, compareFinals, nodeFinals, serveCorpus } from './harness.js';

/** Debian's chromium package; CI installs it (.ci/run). */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

t.test('Chromium: WirefoldStream over fetched captures gives the Node finals', async (t) => {
  if (CHROMIUM === undefined) {
    t.fail('chromium is not installed (/usr/bin/chromium): install the Debian package `chromium` (.ci/run does, as root)');
    return;
  }
  const p = await packed();
  const { code } = await bundleForBrowser(p.dir, `export { WirefoldStream, finals } from 'wirefold';`);
  const want = await nodeFinals();
  const server = await serveCorpus({
    '/': { type: 'text/html', body: '<!doctype html><title>wirefold</title>' },
    '/wirefold.js': { type: 'text/javascript', body: code },
    '/check.js': { type: 'text/javascript', body: checkModule('./wirefold.js') },
  });
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 30_000 });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${server.url}/`);
    const got = await page.evaluate(async (base) => {
      const mod = (await import(`${base}/check.js`)) as { check(base: string): Promise<{ finals: Record<string, string>; iterated: Record<string, string>; buffer: boolean }> };
      return mod.check(base);
    }, server.url);
    t.equal(got.buffer, false, 'the page has no Buffer: the web byte natives ran');
    await t.test('WirefoldStream', async (t) => compareFinals(t, got.finals, want));
    await t.test('finals() over the fetch Response', async (t) => compareFinals(t, got.iterated, want));
    t.same(errors, [], 'no page errors');
  } finally {
    await browser?.close();
    await server.close();
  }
});
