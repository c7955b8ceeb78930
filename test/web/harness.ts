/**
 * What the real-runtime tests share: the corpus captures and their finals as
 * Node gives them (lib/ on Node's Buffer natives), a 127.0.0.1 server that
 * serves the captures (and whatever else a test adds), and the check every
 * runtime runs: fetch each capture, pipe its body through
 * `new WirefoldStream({ output: 'final' })`, and answer each capture's finals
 * as JSON, to be compared with Node's byte for byte.
 */
import type { Test } from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { finals } from '../../lib/pipeline/iterate.js';
import { corpusFiles, type CorpusFile } from '../helpers/corpus.js';

export const captures: CorpusFile[] = corpusFiles().filter((f) => !f.name.endsWith('.md'));

/** Each capture's finals on Node, as JSON. */
export async function nodeFinals(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of captures) {
    const all = [];
    for await (const r of finals(f.bytes)) all.push(r);
    out[f.name] = JSON.stringify(all);
  }
  return out;
}

export interface CorpusServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `/list` (the capture names), `/corpus/NAME` (a capture, written in
 * pieces of 1000 bytes so the reader sees it chunked) and `extra` paths.
 */
export async function serveCorpus(extra: Record<string, { type: string; body: string | Uint8Array }> = {}): Promise<CorpusServer> {
  const byName = new Map(captures.map((f) => [f.name, f.bytes]));
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const page = extra[path];
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' });
      res.end(page.body);
      return;
    }
    if (path === '/list') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([...byName.keys()]));
      return;
    }
    const bytes = path.startsWith('/corpus/') ? byName.get(path.slice('/corpus/'.length)) : undefined;
    if (bytes === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    for (let i = 0; i < bytes.length; i += 1000) res.write(bytes.subarray(i, i + 1000));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The check as a JavaScript module that imports WirefoldStream and finals
 * from `from` and exports `check(base)`: every capture's finals as JSON
 * strings by name, through WirefoldStream (`finals`) and through finals() over
 * the fetch Response (`iterated`), whether the runtime has a Buffer, and what
 * `from` resolved to.
 */
export function checkModule(from: string): string {
  return `
import { WirefoldStream, finals } from ${JSON.stringify(from)};
export async function check(base) {
  const names = await (await fetch(base + '/list')).json();
  const out = {};
  const iterated = {};
  for (const name of names) {
    const url = base + '/corpus/' + encodeURIComponent(name);
    const reader = (await fetch(url)).body.pipeThrough(new WirefoldStream({ output: 'final' })).getReader();
    const all = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      all.push(value);
    }
    out[name] = JSON.stringify(all);
    // finals() over the fetch Response itself
    const again = [];
    for await (const f of finals(await fetch(url))) again.push(f);
    iterated[name] = JSON.stringify(again);
  }
  return { finals: out, iterated, buffer: typeof globalThis.Buffer === 'function', entry: import.meta.resolve(${JSON.stringify(from)}) };
}
`;
}

/**
 * A final's error message may quote the engine's own JSON.parse message
 * (`arguments are not valid JSON: Unterminated string in JSON at position
 * 149`), which V8 versions and JavaScriptCore word differently: that quote is
 * the one part of the finals allowed to differ between runtimes.
 */
const ENGINE_JSON_MESSAGE = /(not valid JSON: )(?:[^"\\]|\\.)*/g;

function withoutEngineMessages(json: string | undefined): string | undefined {
  return json?.replace(ENGINE_JSON_MESSAGE, '$1<JSON.parse message>');
}

/** Compares a runtime's finals with Node's, one assertion per capture (byte for byte, but the engine's JSON.parse wording). */
export function compareFinals(
  t: Test,
  got: Record<string, string>,
  want: Record<string, string>,
): void {
  t.same(Object.keys(got).sort(), Object.keys(want).sort(), 'every capture was read');
  const worded: string[] = [];
  for (const name of Object.keys(want)) {
    if (got[name] === want[name]) {
      t.equal(got[name], want[name], name);
      continue;
    }
    worded.push(name);
    t.equal(withoutEngineMessages(got[name]), withoutEngineMessages(want[name]), `${name} (but the engine's JSON.parse wording)`);
  }
  if (worded.length > 0) t.comment(`the engine words JSON.parse errors its own way in: ${worded.join(', ')}`);
}

/** A browser bundle of `contents` (imports of 'wirefold' resolve in the packed package's project, under the `browser` condition). */
export async function bundleForBrowser(resolveDir: string, contents: string): Promise<{ code: string; inputs: string[]; kept: string[] }> {
  const { build } = await import('esbuild');
  const result = await build({
    stdin: { contents, resolveDir, loader: 'js', sourcefile: 'entry.js' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // inputs: every module read; kept: those with code in the bundle (the rest was shaken out)
  const output = Object.values(result.metafile.outputs)[0]!.inputs;
  const kept = Object.keys(output).filter((k) => output[k]!.bytesInOutput > 0);
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs), kept };
}
