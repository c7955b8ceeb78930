/**
 * The gateway's settings: a small JSON file (GATEWAY_CONFIG=path) and/or
 * environment variables, the variables winning. Secrets come from the
 * environment only: the provider key from the variable the config names
 * (`upstream.keyEnv`, by default OPENAI_API_KEY, ANTHROPIC_API_KEY or
 * GEMINI_API_KEY after the upstream's format), the caller token from
 * GATEWAY_TOKEN. A config file holds no secret.
 */
import { readFileSync } from 'node:fs';
import { FORMATS } from './formats.js';

const DEFAULT_KEY_ENV = {
  'openai-chat': 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  'anthropic-messages': 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
};

/** Caller headers forwarded upstream when nothing else is configured (tracing and Anthropic's beta flags). */
export const DEFAULT_FORWARD_HEADERS = ['anthropic-beta', 'traceparent', 'tracestate', 'x-request-id'];

/** Never forwarded, whatever the allow-list says: credentials, and what the gateway sets itself. */
const NEVER_FORWARDED = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
  'proxy-authorization',
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'accept-encoding',
  'anthropic-version',
]);

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export class ConfigError extends Error {}

function int(name, value, min) {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name}: an integer ≥ ${min} is required, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * @typedef {{
 *   host: string, port: number, token: string | null,
 *   upstream: { format: import('./formats.js').Format, baseUrl: string, key: string | null, keyEnv: string, model: string | null },
 *   maxBodyBytes: number, connectTimeoutMs: number, idleTimeoutMs: number, maxTokens: number,
 *   forwardHeaders: string[],
 * }} Config
 */

/** @returns {Config} */
export function loadConfig(env = process.env) {
  let file = {};
  if (env.GATEWAY_CONFIG) {
    try {
      file = JSON.parse(readFileSync(env.GATEWAY_CONFIG, 'utf8'));
    } catch (err) {
      throw new ConfigError(`GATEWAY_CONFIG ${env.GATEWAY_CONFIG}: ${err.message}`);
    }
  }
  const up = file.upstream ?? {};
  const format = env.GATEWAY_UPSTREAM_FORMAT || up.format;
  if (!FORMATS.includes(format)) throw new ConfigError(`the upstream's format (GATEWAY_UPSTREAM_FORMAT or upstream.format): one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  const baseUrl = env.GATEWAY_UPSTREAM_URL || up.baseUrl;
  let url;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`the upstream's base URL (GATEWAY_UPSTREAM_URL or upstream.baseUrl): an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`the upstream's base URL must be http or https, got ${url.protocol}`);
  if (url.username || url.password || url.search) throw new ConfigError("the upstream's base URL carries no credentials or query: the key comes from the environment");
  if ('key' in up || 'apiKey' in up) throw new ConfigError('a config file holds no key: name the environment variable that does (upstream.keyEnv)');
  const keyEnv = env.GATEWAY_UPSTREAM_KEY_ENV || up.keyEnv || DEFAULT_KEY_ENV[format];

  const host = env.GATEWAY_HOST || file.host || '127.0.0.1';
  const token = env.GATEWAY_TOKEN || null;
  if (!LOOPBACK.has(host) && token === null) {
    throw new ConfigError(`listening on ${host} (not loopback) needs a caller token: set GATEWAY_TOKEN (callers send it as their API key)`);
  }

  const forward = (env.GATEWAY_FORWARD_HEADERS !== undefined ? env.GATEWAY_FORWARD_HEADERS.split(',') : (file.forwardHeaders ?? DEFAULT_FORWARD_HEADERS))
    .map((h) => String(h).trim().toLowerCase())
    .filter((h) => h !== '');
  const refused = forward.filter((h) => NEVER_FORWARDED.has(h));
  if (refused.length > 0) throw new ConfigError(`these headers are never forwarded upstream: ${refused.join(', ')}`);

  return {
    host,
    port: int('GATEWAY_PORT', env.GATEWAY_PORT, 0) ?? int('port', file.port, 0) ?? 8787,
    token,
    upstream: {
      format,
      baseUrl: url.href.replace(/\/+$/, ''),
      key: env[keyEnv] || null,
      keyEnv,
      model: env.GATEWAY_UPSTREAM_MODEL || up.model || null,
    },
    maxBodyBytes: int('GATEWAY_MAX_BODY_BYTES', env.GATEWAY_MAX_BODY_BYTES, 1) ?? int('maxBodyBytes', file.maxBodyBytes, 1) ?? 4 * 1024 * 1024,
    connectTimeoutMs: int('GATEWAY_CONNECT_TIMEOUT_MS', env.GATEWAY_CONNECT_TIMEOUT_MS, 1) ?? int('connectTimeoutMs', file.connectTimeoutMs, 1) ?? 30_000,
    idleTimeoutMs: int('GATEWAY_IDLE_TIMEOUT_MS', env.GATEWAY_IDLE_TIMEOUT_MS, 1) ?? int('idleTimeoutMs', file.idleTimeoutMs, 1) ?? 120_000,
    maxTokens: int('GATEWAY_MAX_TOKENS', env.GATEWAY_MAX_TOKENS, 1) ?? int('maxTokens', file.maxTokens, 1) ?? 4096,
    forwardHeaders: forward,
  };
}
