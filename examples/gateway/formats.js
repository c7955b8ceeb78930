/**
 * The four streaming APIs the gateway speaks, each as one small table:
 * where its endpoint is, how its request body reads into the shared request
 * (and is written back out), how it authenticates upstream, and its error
 * forms (a JSON body before the stream starts; a frame of its own wire when
 * the upstream stalls mid-stream, handed to wirefold's reader so that the
 * encoder writes it in the caller's wire).
 *
 * The shared request holds what the four APIs have in common: the model,
 * the system text, the messages (text, tool calls with their arguments, tool
 * results), the function tools, the tool choice, max tokens, temperature,
 * top_p and stop sequences. Anything else in a body is left out when the
 * caller's API differs from the upstream's (a caller of the upstream's own
 * API gets its body forwarded as it came, with only the model and the
 * streaming settings set).
 */

/** @typedef {'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini'} Format */

/**
 * @typedef {{ type: 'text', text: string }
 *   | { type: 'tool_call', id: string, name: string, args: unknown }
 *   | { type: 'tool_result', id: string, name: string | null, content: string, isError: boolean }} Part
 * @typedef {{ role: 'user' | 'assistant', parts: Part[] }} Message
 * @typedef {{ name: string, description?: string, parameters: object }} Tool
 * @typedef {null | 'auto' | 'none' | 'required' | { name: string }} ToolChoice
 * @typedef {{
 *   model: string, system: string | null, messages: Message[], tools: Tool[], toolChoice: ToolChoice,
 *   maxTokens: number | null, temperature: number | null, topP: number | null, stop: string[] | null,
 * }} SharedRequest
 */

/** A request the gateway refuses (400 in the caller's error form). */
export class RequestError extends Error {}

export const FORMATS = /** @type {const} */ (['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini']);

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Text of a content that is a string or a list of text parts (other parts ignored). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p === 'string' ? p : isObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** Tool arguments as an object when they are JSON text, else the text. */
function parseArgs(args) {
  if (typeof args !== 'string') return args ?? {};
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

const argsText = (args) => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

function stopList(v) {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v;
  return null;
}

/** Sets max tokens, temperature, top_p and stop sequences that are known, under one API's names (no name: not in that API). */
function setSampling(body, r, names) {
  if (r.maxTokens !== null && names.maxTokens) body[names.maxTokens] = r.maxTokens;
  if (r.temperature !== null) body[names.temperature] = r.temperature;
  if (r.topP !== null) body[names.topP] = r.topP;
  if (r.stop !== null && names.stop) body[names.stop] = r.stop;
  return body;
}

/** The APIs whose body says `"stream": true` (Gemini's endpoint says it instead). */
const STREAM_FLAG = {
  streaming: (body) => ({ ...body, stream: true }),
  wantsStream: (body) => body.stream === true,
};

/** Appends parts to the last message when it has the same role, else starts a message. */
function push(messages, role, parts) {
  if (parts.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === role) last.parts.push(...parts);
  else messages.push({ role, parts: [...parts] });
}

/** The name of the call a result answers (Gemini's functionResponse needs it). */
function callName(messages, id) {
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool_call' && p.id === id) return p.name;
  return null;
}

/**
 * The shared request of an OpenAI body (Chat or Responses) from what each reads its own way: the
 * tool choice is a string or names one function (`named`).
 */
function openaiShared(body, { system, messages, tools, named, maxTokens, stop }) {
  return {
    model: String(body.model ?? ''),
    system: system.length > 0 ? system.join('\n\n') : null,
    messages,
    tools,
    toolChoice: typeof body.tool_choice === 'string' ? body.tool_choice : named === undefined ? null : { name: String(named) },
    maxTokens,
    temperature: num(body.temperature),
    topP: num(body.top_p),
    stop,
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

const openaiChat = {
  name: 'openai-chat',
  /** @returns {SharedRequest} */
  read(body) {
    if (!Array.isArray(body.messages)) throw new RequestError('messages: an array is required');
    /** @type {Message[]} */
    const messages = [];
    const system = [];
    for (const m of body.messages) {
      if (!isObject(m)) throw new RequestError('messages: each message is an object');
      if (m.role === 'system' || m.role === 'developer') system.push(textOf(m.content));
      else if (m.role === 'user') push(messages, 'user', [{ type: 'text', text: textOf(m.content) }]);
      else if (m.role === 'assistant') {
        const parts = [];
        const text = textOf(m.content);
        if (text !== '') parts.push({ type: 'text', text });
        for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
          if (isObject(tc?.function)) parts.push({ type: 'tool_call', id: String(tc.id), name: String(tc.function.name), args: parseArgs(tc.function.arguments) });
        }
        push(messages, 'assistant', parts);
      } else if (m.role === 'tool') {
        const id = String(m.tool_call_id);
        push(messages, 'user', [{ type: 'tool_result', id, name: callName(messages, id), content: textOf(m.content), isError: false }]);
      } else throw new RequestError(`messages: unknown role ${JSON.stringify(m.role)}`);
    }
    const tools = [];
    for (const t of Array.isArray(body.tools) ? body.tools : []) {
      if (t?.type === 'function' && isObject(t.function)) tools.push({ name: t.function.name, description: t.function.description, parameters: t.function.parameters ?? { type: 'object', properties: {} } });
    }
    const named = isObject(body.tool_choice) && isObject(body.tool_choice.function) ? body.tool_choice.function.name : undefined;
    return openaiShared(body, { system, messages, tools, named, maxTokens: num(body.max_completion_tokens) ?? num(body.max_tokens), stop: stopList(body.stop) });
  },
  /** @param {SharedRequest} r */
  write(r) {
    const messages = [];
    if (r.system !== null) messages.push({ role: 'system', content: r.system });
    for (const m of r.messages) {
      if (m.role === 'assistant') {
        const text = m.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
        const calls = m.parts.filter((p) => p.type === 'tool_call');
        const msg = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
        if (calls.length > 0) msg.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: argsText(c.args) } }));
        messages.push(msg);
        continue;
      }
      // a user turn: its tool results first (they answer the assistant's calls), then its text
      for (const p of m.parts) if (p.type === 'tool_result') messages.push({ role: 'tool', tool_call_id: p.id, content: p.content });
      const text = m.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
      if (text !== '' || m.parts.every((p) => p.type === 'text')) messages.push({ role: 'user', content: text });
    }
    const body = { model: r.model, messages, stream: true };
    if (r.tools.length > 0) body.tools = r.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    if (r.toolChoice !== null) body.tool_choice = typeof r.toolChoice === 'string' ? r.toolChoice : { type: 'function', function: { name: r.toolChoice.name } };
    setSampling(body, r, { maxTokens: 'max_completion_tokens', temperature: 'temperature', topP: 'top_p', stop: 'stop' });
    return this.streaming(body);
  },
  ...STREAM_FLAG,
  /** The usage chunk comes only when asked for: without it the caller's usage would be unknown. */
  streaming(body) {
    return { ...body, stream: true, stream_options: { ...(isObject(body.stream_options) ? body.stream_options : {}), include_usage: true } };
  },
  path: () => '/v1/chat/completions',
  auth: (key) => ({ authorization: `Bearer ${key}` }),
  callerKey: (req) => bearer(req),
  error(status, kind, message) {
    return { error: { message, type: OPENAI_TYPE[kind], param: null, code: kind } };
  },
  /** A terminal error chunk of this wire (`data: {"error": …}`), as OpenAI sends one mid-stream. */
  streamError(kind, message) {
    return `data: ${JSON.stringify({ error: { message, type: kind, code: kind } })}\n\n`;
  },
};

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

const openaiResponses = {
  name: 'openai-responses',
  read(body) {
    /** @type {Message[]} */
    const messages = [];
    const system = typeof body.instructions === 'string' ? [body.instructions] : [];
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
    if (!Array.isArray(input)) throw new RequestError('input: a string or an array is required');
    for (const item of input) {
      if (!isObject(item)) throw new RequestError('input: each item is an object');
      if (item.type === 'function_call') {
        push(messages, 'assistant', [{ type: 'tool_call', id: String(item.call_id), name: String(item.name), args: parseArgs(item.arguments) }]);
      } else if (item.type === 'function_call_output') {
        const id = String(item.call_id);
        push(messages, 'user', [{ type: 'tool_result', id, name: callName(messages, id), content: typeof item.output === 'string' ? item.output : textOf(item.output), isError: false }]);
      } else if (item.type === undefined || item.type === 'message') {
        if (item.role === 'system' || item.role === 'developer') system.push(textOf(item.content));
        else if (item.role === 'user' || item.role === 'assistant') push(messages, item.role, [{ type: 'text', text: textOf(item.content) }]);
        else throw new RequestError(`input: unknown role ${JSON.stringify(item.role)}`);
      }
      // other items (reasoning, hosted tool calls) belong to the Responses API alone
    }
    const tools = [];
    for (const t of Array.isArray(body.tools) ? body.tools : []) {
      if (t?.type === 'function') tools.push({ name: t.name, description: t.description, parameters: t.parameters ?? { type: 'object', properties: {} } });
    }
    const named = isObject(body.tool_choice) && body.tool_choice.type === 'function' ? body.tool_choice.name : undefined;
    return openaiShared(body, { system, messages, tools, named, maxTokens: num(body.max_output_tokens), stop: null });
  },
  write(r) {
    const input = [];
    for (const m of r.messages) {
      for (const p of m.parts) {
        if (p.type === 'text') input.push({ role: m.role, content: p.text });
        else if (p.type === 'tool_call') input.push({ type: 'function_call', call_id: p.id, name: p.name, arguments: argsText(p.args) });
        else input.push({ type: 'function_call_output', call_id: p.id, output: p.content });
      }
    }
    const body = { model: r.model, input, stream: true };
    if (r.system !== null) body.instructions = r.system;
    if (r.tools.length > 0) body.tools = r.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
    if (r.toolChoice !== null) body.tool_choice = typeof r.toolChoice === 'string' ? r.toolChoice : { type: 'function', name: r.toolChoice.name };
    // the Responses API has no stop sequences
    return setSampling(body, r, { maxTokens: 'max_output_tokens', temperature: 'temperature', topP: 'top_p' });
  },
  ...STREAM_FLAG,
  path: () => '/v1/responses',
  auth: (key) => ({ authorization: `Bearer ${key}` }),
  callerKey: (req) => bearer(req),
  error: openaiChat.error,
  streamError(kind, message) {
    return `event: error\ndata: ${JSON.stringify({ type: 'error', code: kind, message, param: null })}\n\n`;
  },
};

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

const ANTHROPIC_CHOICE = { auto: 'auto', none: 'none', required: 'any' };

const anthropicMessages = {
  name: 'anthropic-messages',
  read(body) {
    if (!Array.isArray(body.messages)) throw new RequestError('messages: an array is required');
    /** @type {Message[]} */
    const messages = [];
    for (const m of body.messages) {
      if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) throw new RequestError('messages: each message has the role user or assistant');
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
      const parts = [];
      for (const b of blocks) {
        if (b?.type === 'text') parts.push({ type: 'text', text: String(b.text) });
        else if (b?.type === 'tool_use') parts.push({ type: 'tool_call', id: String(b.id), name: String(b.name), args: b.input ?? {} });
        else if (b?.type === 'tool_result') {
          const id = String(b.tool_use_id);
          parts.push({ type: 'tool_result', id, name: callName(messages, id), content: textOf(b.content), isError: b.is_error === true });
        }
        // thinking blocks and their signatures only mean something to Anthropic: a caller of
        // another upstream loses them (an Anthropic upstream gets the body as it came)
      }
      push(messages, m.role, parts);
    }
    const tools = [];
    for (const t of Array.isArray(body.tools) ? body.tools : []) {
      if (isObject(t) && isObject(t.input_schema)) tools.push({ name: t.name, description: t.description, parameters: t.input_schema });
    }
    let toolChoice = null;
    const tc = body.tool_choice;
    if (isObject(tc)) toolChoice = tc.type === 'tool' ? { name: tc.name } : tc.type === 'any' ? 'required' : tc.type === 'none' ? 'none' : 'auto';
    return {
      model: String(body.model ?? ''),
      system: body.system === undefined ? null : textOf(body.system),
      messages,
      tools,
      toolChoice,
      maxTokens: num(body.max_tokens),
      temperature: num(body.temperature),
      topP: num(body.top_p),
      stop: stopList(body.stop_sequences),
    };
  },
  write(r, defaults) {
    const messages = r.messages.map((m) => ({
      role: m.role,
      content: m.parts.map((p) =>
        p.type === 'text'
          ? { type: 'text', text: p.text }
          : p.type === 'tool_call'
            ? { type: 'tool_use', id: p.id, name: p.name, input: typeof p.args === 'object' && p.args !== null ? p.args : { input: p.args } }
            : { type: 'tool_result', tool_use_id: p.id, content: p.content, ...(p.isError ? { is_error: true } : {}) },
      ),
    }));
    // the API wants max_tokens: the caller's, else the configured default
    const body = { model: r.model, max_tokens: r.maxTokens ?? defaults.maxTokens, messages, stream: true };
    if (r.system !== null) body.system = r.system;
    if (r.tools.length > 0) body.tools = r.tools.map((t) => ({ name: t.name, ...(t.description === undefined ? {} : { description: t.description }), input_schema: t.parameters }));
    if (r.toolChoice !== null) body.tool_choice = typeof r.toolChoice === 'string' ? { type: ANTHROPIC_CHOICE[r.toolChoice] ?? 'auto' } : { type: 'tool', name: r.toolChoice.name };
    if (body.tool_choice !== undefined && r.tools.length === 0) delete body.tool_choice;
    return setSampling(body, r, { temperature: 'temperature', topP: 'top_p', stop: 'stop_sequences' });
  },
  ...STREAM_FLAG,
  path: () => '/v1/messages',
  auth: (key) => ({ 'x-api-key': key }),
  /** The version the gateway speaks upstream (a caller's own anthropic-version is not forwarded). */
  upstreamHeaders: { 'anthropic-version': '2023-06-01' },
  callerKey: (req) => header(req, 'x-api-key') ?? bearer(req),
  error(status, kind, message) {
    return { type: 'error', error: { type: ANTHROPIC_TYPE[kind], message } };
  },
  streamError(kind, message) {
    return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: kind, message } })}\n\n`;
  },
};

// ---------------------------------------------------------------------------------------------
// Gemini generateContent (streamGenerateContent?alt=sse)

const GEMINI_MODE = { auto: 'AUTO', none: 'NONE', required: 'ANY' };

/** Gemini's OpenAPI-style schemas write types in capitals (`OBJECT`): JSON Schema wants them lower-case. */
function lowerTypes(schema) {
  if (Array.isArray(schema)) return schema.map(lowerTypes);
  if (!isObject(schema)) return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'type' && typeof v === 'string' ? v.toLowerCase() : lowerTypes(v);
  return out;
}

const gemini = {
  name: 'gemini',
  read(body, model) {
    if (!Array.isArray(body.contents)) throw new RequestError('contents: an array is required');
    /** @type {Message[]} */
    const messages = [];
    let calls = 0;
    /** Gemini's calls may have no id: results pair with the last call of their name. */
    const open = new Map();
    for (const c of body.contents) {
      if (!isObject(c)) throw new RequestError('contents: each content is an object');
      const role = c.role === 'model' ? 'assistant' : 'user';
      const parts = [];
      for (const p of Array.isArray(c.parts) ? c.parts : []) {
        if (!isObject(p) || p.thought === true) continue; // thought summaries are not sent back
        if (typeof p.text === 'string') parts.push({ type: 'text', text: p.text });
        else if (isObject(p.functionCall)) {
          const id = typeof p.functionCall.id === 'string' ? p.functionCall.id : `call_${++calls}`;
          open.set(p.functionCall.name, id);
          parts.push({ type: 'tool_call', id, name: String(p.functionCall.name), args: p.functionCall.args ?? {} });
        } else if (isObject(p.functionResponse)) {
          const name = String(p.functionResponse.name);
          const id = typeof p.functionResponse.id === 'string' ? p.functionResponse.id : (open.get(name) ?? `call_${++calls}`);
          const response = p.functionResponse.response;
          const content = isObject(response) && typeof response.result === 'string' && Object.keys(response).length === 1 ? response.result : JSON.stringify(response ?? {});
          parts.push({ type: 'tool_result', id, name, content, isError: isObject(response) && 'error' in response });
        }
      }
      push(messages, role, parts);
    }
    const tools = [];
    for (const t of Array.isArray(body.tools) ? body.tools : []) {
      for (const d of Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : []) {
        tools.push({ name: d.name, description: d.description, parameters: d.parametersJsonSchema ?? lowerTypes(d.parameters ?? { type: 'object', properties: {} }) });
      }
    }
    let toolChoice = null;
    const fc = body.toolConfig?.functionCallingConfig;
    if (isObject(fc)) {
      const names = Array.isArray(fc.allowedFunctionNames) ? fc.allowedFunctionNames : [];
      toolChoice = fc.mode === 'ANY' && names.length === 1 ? { name: names[0] } : fc.mode === 'ANY' ? 'required' : fc.mode === 'NONE' ? 'none' : 'auto';
    }
    const g = isObject(body.generationConfig) ? body.generationConfig : {};
    const system = body.systemInstruction === undefined ? null : textOf(typeof body.systemInstruction === 'string' ? body.systemInstruction : body.systemInstruction.parts);
    return {
      model,
      system,
      messages,
      tools,
      toolChoice,
      maxTokens: num(g.maxOutputTokens),
      temperature: num(g.temperature),
      topP: num(g.topP),
      stop: stopList(g.stopSequences),
    };
  },
  write(r) {
    const contents = r.messages.map((m) => ({
      role: m.role === 'assistant' ? 'model' : 'user',
      parts: m.parts.map((p) =>
        p.type === 'text'
          ? { text: p.text }
          : p.type === 'tool_call'
            ? { functionCall: { id: p.id, name: p.name, args: typeof p.args === 'object' && p.args !== null ? p.args : { input: p.args } } }
            : { functionResponse: { id: p.id, name: p.name ?? callName(r.messages, p.id) ?? 'unknown', response: p.isError ? { error: p.content } : { result: p.content } } },
      ),
    }));
    const body = { contents };
    if (r.system !== null) body.systemInstruction = { parts: [{ text: r.system }] };
    if (r.tools.length > 0) body.tools = [{ functionDeclarations: r.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
    if (r.toolChoice !== null && r.tools.length > 0) {
      body.toolConfig = {
        functionCallingConfig: typeof r.toolChoice === 'string' ? { mode: GEMINI_MODE[r.toolChoice] ?? 'AUTO' } : { mode: 'ANY', allowedFunctionNames: [r.toolChoice.name] },
      };
    }
    const g = setSampling({}, r, { maxTokens: 'maxOutputTokens', temperature: 'temperature', topP: 'topP', stop: 'stopSequences' });
    if (Object.keys(g).length > 0) body.generationConfig = g;
    return body;
  },
  /** Gemini streams whatever the body says: the endpoint (and alt=sse) makes it a stream. */
  streaming: (body) => body,
  wantsStream: () => true,
  path: (model) => `/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
  auth: (key) => ({ 'x-goog-api-key': key }),
  callerKey: (req) => header(req, 'x-goog-api-key') ?? new URL(req.url ?? '/', 'http://x').searchParams.get('key') ?? bearer(req),
  error(status, kind, message) {
    return { error: { code: status, message, status: GEMINI_STATUS[kind] } };
  },
  streamError(kind, message) {
    // read back by wirefold's Gemini reader as an error with `status` as its code
    return `data: ${JSON.stringify({ error: { code: kind === 'timeout_error' ? 504 : 502, message, status: kind } })}\n\n`;
  },
};

// ---------------------------------------------------------------------------------------------

/**
 * What went wrong, by kind; each API's own word for it. The HTTP status goes with the kind
 * (see STATUS), except for upstream errors, which keep the upstream's status.
 */
const OPENAI_TYPE = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  not_implemented: 'not_implemented_error',
  upstream_error: 'api_error',
  overloaded: 'api_error',
  timeout: 'timeout_error',
};
const ANTHROPIC_TYPE = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  not_implemented: 'api_error',
  upstream_error: 'api_error',
  overloaded: 'overloaded_error',
  timeout: 'timeout_error',
};
const GEMINI_STATUS = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  request_too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  not_implemented: 'UNIMPLEMENTED',
  upstream_error: 'INTERNAL',
  overloaded: 'UNAVAILABLE',
  timeout: 'DEADLINE_EXCEEDED',
};

/** The HTTP status of each kind of error the gateway answers itself. */
export const STATUS = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  request_too_large: 413,
  rate_limit: 429,
  not_implemented: 501,
  upstream_error: 502,
  overloaded: 503,
  timeout: 504,
};

/** The kind of an upstream error status. */
export function kindOfStatus(status) {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 504 || status === 408) return 'timeout';
  return 'upstream_error';
}

/** The message of an upstream's JSON error body, whichever of the four shapes it has. */
export function upstreamMessage(text) {
  try {
    const body = JSON.parse(text);
    const e = Array.isArray(body) ? body[0]?.error : body?.error;
    if (isObject(e) && typeof e.message === 'string') return e.message;
    if (typeof body?.message === 'string') return body.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 500);
}

function header(req, name) {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : null;
}

function bearer(req) {
  const v = header(req, 'authorization');
  const m = v === null ? null : /^Bearer\s+(.+)$/i.exec(v);
  return m ? m[1].trim() : null;
}

export const API = { 'openai-chat': openaiChat, 'openai-responses': openaiResponses, 'anthropic-messages': anthropicMessages, gemini };

/**
 * The caller's API and model from the request line: POST /v1/chat/completions, /v1/responses,
 * /v1/messages or /v1beta/models/{model}:streamGenerateContent. Null: no such endpoint.
 */
export function route(method, url) {
  const u = new URL(url ?? '/', 'http://gateway');
  const path = u.pathname;
  if (path === '/v1/chat/completions') return { format: 'openai-chat', model: null };
  if (path === '/v1/responses') return { format: 'openai-responses', model: null };
  if (path === '/v1/messages') return { format: 'anthropic-messages', model: null };
  const m = /^\/v1(?:beta)?\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path);
  if (m) return { format: 'gemini', model: decodeURIComponent(m[1]), streaming: m[2] === 'streamGenerateContent', sse: u.searchParams.get('alt') === 'sse' };
  return null;
}
