/**
 * The web entry bundles for browsers (esbuild, platform browser, from the
 * packed package: the `browser` condition picks dist/web/): no Node built-in,
 * no package, nothing that would need a polyfill. And the size a user pays for
 * the fused stage alone (WirefoldStream), minified and gzipped, within budget
 * (README.md "Web streams / edge" reports it).
 */
import t from 'tap';
import { gzipSync } from 'node:zlib';
import { packed } from '../helpers/packed.js';
import { bundleForBrowser } from './harness.js';

/** The most the fused stage's bundle may weigh, gzipped (it was 52 KB when written: every dialect, no encoder). */
const BUDGET = 80 * 1024;

const p = await packed();

t.test('the whole web entry bundles for the browser from the package’s own files only', async (t) => {
  const { inputs, code } = await bundleForBrowser(p.dir, `export * from 'wirefold';`);
  const outside = inputs.filter((i) => !/node_modules\/wirefold\/dist\/(?!index\.js)/.test(i) && !i.endsWith('entry.js'));
  t.same(outside, [], 'only dist/ modules of the package (dist/index.js, the Node entry, is not among them)');
  t.ok(inputs.some((i) => i.endsWith('dist/web/index.js')), 'the browser condition picked dist/web/index.js');
  t.notMatch(code, /\brequire\(|from\s*["']node:/, 'no require or node: import left in the bundle');
});

t.test('the fused stage alone: its size, minified and gzipped', async (t) => {
  const { kept, code } = await bundleForBrowser(p.dir, `export { WirefoldStream } from 'wirefold';`);
  const gz = gzipSync(code, { level: 9 }).length;
  t.comment(`WirefoldStream: ${(code.length / 1024).toFixed(1)} KiB minified, ${(gz / 1024).toFixed(1)} KiB gzipped (${kept.length} modules)`);
  t.notOk(
    kept.some((i) => /\/encode\/targets\//.test(i)),
    'no encoder in it (TranscodeStream brings them)',
  );
  t.ok(gz <= BUDGET, `${gz} bytes gzipped, within ${BUDGET}`);
});
