/**
 * The gateway: a node:http server that takes the OpenAI Chat, OpenAI
 * Responses, Anthropic Messages and Gemini streaming endpoints, forwards
 * each request to one configured upstream (its body translated when the
 * APIs differ), and writes the upstream's stream back in the caller's wire
 * with wirefold's createStream({ to }): one Transform between the upstream
 * response and the caller's, in one stream.pipeline (backpressure end to
 * end: a slow caller slows the upstream socket down, nothing piles up).
 */
import { createServer, request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { timingSafeEqual, createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createStream, targetNames } from 'wirefold';
import { API, RequestError, STATUS, kindOfStatus, route, upstreamMessage } from './formats.js';

/** The trailer that carries the loss reports of a response (JSON, ASCII). */
export const LOSS_TRAILER = 'x-wirefold-loss';

const STALLED = Symbol('stalled');

/** JSON with every character outside printable ASCII escaped: fit for a header value. */
function asciiJson(value) {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Takes secrets out of a text: the provider key and the caller token, and any run of 12 or
 * more of their characters (an upstream that quotes part of the key it was sent).
 */
export function redactor(secrets) {
  const pieces = new Set();
  for (const s of secrets) {
    if (!s) continue;
    pieces.add(s);
    for (let i = 0; i + 12 <= s.length; i++) pieces.add(s.slice(i, i + 12));
  }
  const list = [...pieces].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = String(text);
    for (const p of list) if (out.includes(p)) out = out.split(p).join('[redacted]');
    return out;
  };
}

/** Compares a caller's token with the configured one in constant time. */
function tokenMatches(given, expected) {
  if (given === null) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** An error the gateway answers itself, before the stream starts. */
class Refusal extends Error {
  constructor(kind, message, status = STATUS[kind]) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

/** The request body, at most `limit` bytes (else a request_too_large refusal). */
function readBody(req, limit) {
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > limit) return Promise.reject(new Refusal('request_too_large', `the request body is ${length} bytes; the limit is ${limit}`));
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(new Refusal('request_too_large', `the request body is over the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The upstream body, chunk by chunk, watched: when no byte comes for `idleMs` (or the upstream
 * connection fails), the stream ends with a terminal error frame written in the UPSTREAM's own
 * wire, which wirefold reads like any provider error and the encoder writes in the caller's wire.
 */
async function* watched(body, idleMs, api, onFailure) {
  const it = body[Symbol.asyncIterator]();
  // one timer, re-armed before each read (it may fire while the caller holds the stream back:
  // then it only wakes a read that is already over)
  let wake = () => {};
  const timer = setTimeout(() => wake(STALLED), idleMs);
  try {
    for (;;) {
      const stalled = new Promise((resolve) => (wake = resolve));
      timer.refresh();
      let step;
      try {
        step = await Promise.race([it.next(), stalled]);
      } catch (err) {
        step = { error: err };
      }
      if (step === STALLED) {
        const message = `the upstream sent nothing for ${idleMs} ms (idle timeout)`;
        onFailure('timeout', message);
        yield `\n\n${api.streamError('timeout_error', message)}`;
        return;
      }
      if (step.error !== undefined) {
        const message = 'the upstream connection failed mid-stream';
        if (onFailure('upstream_error', message)) yield `\n\n${api.streamError('api_error', message)}`;
        return;
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @param {import('./config.js').Config} config
 * @param {{ log?: (entry: object) => void }} [options] log: one object per line (JSON on stderr by default)
 */
export function createGateway(config, options = {}) {
  const redact = redactor([config.upstream.key, config.token]);
  const write = options.log ?? ((entry) => process.stderr.write(`${JSON.stringify(entry)}\n`));
  /** Every log line goes through the redactor: no key or token in a log, whatever a message holds. */
  const log = (entry) => write(JSON.parse(redact(JSON.stringify({ time: new Date().toISOString(), ...entry }))));
  const upstreamApi = API[config.upstream.format];
  const upstreamUrl = new URL(config.upstream.baseUrl);
  const secure = upstreamUrl.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const requestUpstream = secure ? httpsRequest : httpRequest;
  let next = 0;

  /** The caller's error form, as a whole JSON response (before any byte of a stream went out). */
  function refuse(res, format, refusal, id) {
    const body = API[format].error(refusal.status, refusal.kind, redact(refusal.message));
    if (res.headersSent) return;
    res.writeHead(refusal.status, { 'content-type': 'application/json', 'x-gateway-request-id': id });
    res.end(JSON.stringify(body));
  }

  async function handle(req, res) {
    const id = `gw-${process.pid}-${++next}`;
    const started = Date.now();
    const r = route(req.method, req.url);
    const format = r?.format ?? 'openai-chat';
    const done = (fields) => log({ level: 'info', msg: 'request', id, caller: format, upstream: config.upstream.format, ms: Date.now() - started, ...fields });
    try {
      if (r === null) throw new Refusal('not_found', `no such endpoint: ${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
      if (req.method !== 'POST') throw new Refusal('invalid_request', `${req.method} is not allowed here: POST`, 405);
      if (config.token !== null && !tokenMatches(API[format].callerKey(req), config.token)) {
        throw new Refusal('authentication', 'a valid gateway token is required (send it as the API key)');
      }
      const raw = await readBody(req, config.maxBodyBytes);
      let body;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new Refusal('invalid_request', 'the request body is not JSON');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Refusal('invalid_request', 'the request body is not a JSON object');
      if (format === 'gemini' && !r.streaming) throw new Refusal('invalid_request', 'this gateway streams only: use :streamGenerateContent');
      if (!API[format].wantsStream(body)) throw new Refusal('invalid_request', 'this gateway streams only: set "stream": true');
      // the wire the caller reads: Gemini's stream is SSE with ?alt=sse, else one JSON array
      const to = format === 'gemini' && !r.sse ? 'gemini-json-array' : format;
      if (!targetNames.includes(to)) {
        throw new Refusal('not_implemented', `wirefold has no encoder for ${to} (target ${JSON.stringify(to)} is missing; it writes ${targetNames.join(', ')})`);
      }

      // the upstream's body: the caller's own when the APIs are the same, else translated
      let upstreamBody;
      let model;
      if (format === config.upstream.format) {
        model = config.upstream.model ?? (format === 'gemini' ? r.model : String(body.model ?? ''));
        upstreamBody = upstreamApi.streaming(format === 'gemini' ? body : { ...body, model });
      } else {
        let shared;
        try {
          shared = API[format].read(body, r.model);
        } catch (err) {
          if (err instanceof RequestError) throw new Refusal('invalid_request', err.message);
          throw err;
        }
        model = config.upstream.model ?? shared.model;
        upstreamBody = upstreamApi.write({ ...shared, model }, { maxTokens: config.maxTokens });
      }
      await forward(req, res, { id, format, to, model, upstreamBody, done });
    } catch (err) {
      if (res.destroyed && !res.headersSent) {
        done({ status: null, outcome: 'caller disconnected' });
        return;
      }
      const refusal = err instanceof Refusal ? err : new Refusal('upstream_error', 'the gateway failed');
      if (!(err instanceof Refusal)) log({ level: 'error', msg: 'internal error', id, error: String(err?.stack ?? err) });
      if (refusal.kind === 'request_too_large') {
        // the rest of the body is not read: the connection closes once the answer is out (and
        // at the latest a second later, whatever the caller still sends)
        res.setHeader('connection', 'close');
        res.once('finish', () => setTimeout(() => req.socket.destroy(), 1000).unref());
      }
      refuse(res, format, refusal, id);
      done({ status: refusal.status, error: refusal.kind, message: refusal.message });
    }
  }

  /** Sends the request upstream and streams its answer back, transcoded. */
  async function forward(req, res, { id, format, to, model, upstreamBody, done }) {
    const controller = new AbortController();
    // the caller went away before its answer was whole: the upstream request goes too
    const onClose = () => {
      if (!res.writableFinished) controller.abort(new Error('the caller disconnected'));
    };
    res.on('close', onClose);
    const payload = Buffer.from(JSON.stringify(upstreamBody));
    const headers = {
      'content-type': 'application/json',
      'content-length': String(payload.length),
      accept: 'text/event-stream',
      ...(upstreamApi.upstreamHeaders ?? {}),
    };
    for (const name of config.forwardHeaders) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    if (config.upstream.key !== null) Object.assign(headers, upstreamApi.auth(config.upstream.key));
    const url = new URL(upstreamUrl.pathname.replace(/\/+$/, '') + upstreamApi.path(model), upstreamUrl);

    const upstream = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => controller.abort(new Refusal('timeout', `the upstream did not answer within ${config.connectTimeoutMs} ms (connect timeout)`)), config.connectTimeoutMs);
      const send = (retry) => {
        const up = requestUpstream(url, { method: 'POST', headers, agent, signal: controller.signal }, (response) => {
          clearTimeout(timer);
          resolve(response);
        });
        up.on('error', (err) => {
          // a kept-alive socket the upstream closed as this request went out (its idle timeout): the
          // request never reached it, so it is sent once more on a new connection (as Node's docs advise)
          if (retry && up.reusedSocket && err.code === 'ECONNRESET' && !controller.signal.aborted) return send(false);
          clearTimeout(timer);
          const reason = controller.signal.reason;
          if (reason instanceof Refusal) reject(reason);
          else if (controller.signal.aborted) reject(new Refusal('upstream_error', 'the caller disconnected'));
          else reject(new Refusal('upstream_error', `the upstream could not be reached (${err.code ?? 'error'})`));
        });
        up.end(payload);
      };
      send(true);
    });

    if (upstream.statusCode < 200 || upstream.statusCode > 299) {
      const text = await readUpstreamError(upstream, controller);
      const status = upstream.statusCode;
      throw new Refusal(kindOfStatus(status), `upstream ${status}: ${upstreamMessage(text)}`, status);
    }

    res.writeHead(200, {
      'content-type': to === 'gemini-json-array' ? 'application/json; charset=utf-8' : 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-gateway-request-id': id,
      trailer: LOSS_TRAILER,
    });
    const losses = [];
    const transcoder = createStream({
      to,
      dialect: config.upstream.format,
      framing: 'sse',
      onLoss: (report) => {
        losses.push(report);
        // the reports so far (addTrailers replaces): sent after the last chunk
        res.addTrailers({ [LOSS_TRAILER]: redact(asciiJson(losses)) });
      },
    });
    res.addTrailers({ [LOSS_TRAILER]: '[]' });
    let failure = null;
    const source = watched(upstream, config.idleTimeoutMs, upstreamApi, (kind, message) => {
      if (controller.signal.aborted) return false; // the caller left: nobody to tell
      failure = { kind, message };
      controller.abort(new Error(message));
      return true;
    });
    let outcome = 'complete';
    try {
      await pipeline(source, transcoder, res);
    } catch (err) {
      outcome = controller.signal.aborted ? 'caller disconnected' : `failed: ${err?.code ?? err?.message ?? err}`;
    } finally {
      res.off('close', onClose);
      if (!upstream.complete) upstream.destroy();
    }
    if (failure !== null) outcome = failure.kind;
    if (losses.length > 0) log({ level: 'info', msg: 'loss', id, caller: to, upstream: config.upstream.format, model, reports: losses });
    done({ status: 200, model, outcome, ...(failure === null ? {} : { error: failure.message }) });
  }

  /** An upstream error body, at most 64 KiB, within the idle timeout. */
  function readUpstreamError(upstream, controller) {
    return new Promise((resolve) => {
      let text = '';
      const timer = setTimeout(() => {
        controller.abort(new Error('idle'));
        resolve(text);
      }, config.idleTimeoutMs);
      upstream.setEncoding('utf8');
      upstream.on('data', (d) => {
        if (text.length < 65536) text += d;
      });
      upstream.on('end', () => (clearTimeout(timer), resolve(text)));
      upstream.on('error', () => (clearTimeout(timer), resolve(text)));
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      log({ level: 'error', msg: 'internal error', error: String(err?.stack ?? err) });
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.on('close', () => agent.destroy());
  return { server, log };
}
