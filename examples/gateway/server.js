/**
 * `node server.js`: the gateway with the settings of config.js (environment
 * variables and/or GATEWAY_CONFIG=<json file>). Logs are JSON lines on
 * stderr: `listening` once, then one `request` line per request and one
 * `loss` line per response that lost something in translation.
 */
import { ConfigError, loadConfig } from './config.js';
import { createGateway } from './gateway.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`gateway: ${err.message}\n`);
  process.exit(2);
}

const { server, log } = createGateway(config);
server.listen(config.port, config.host, () => {
  const { port } = server.address();
  log({
    level: 'info',
    msg: 'listening',
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    upstream: { format: config.upstream.format, baseUrl: config.upstream.baseUrl, model: config.upstream.model, key: config.upstream.key === null ? `not set (${config.upstream.keyEnv} is empty)` : `from ${config.upstream.keyEnv}` },
    callerToken: config.token === null ? 'none (loopback only)' : 'required',
    limits: { maxBodyBytes: config.maxBodyBytes, connectTimeoutMs: config.connectTimeoutMs, idleTimeoutMs: config.idleTimeoutMs },
    forwardHeaders: config.forwardHeaders,
  });
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections?.();
  });
}
