/**
 * One error class for everything wirefold reports, with a closed code union.
 * Fatal problems destroy the stream with one of these; recoverable ones become
 * `error` events that carry the same codes.
 */

/** Every error code wirefold produces. */
export type ErrorCode =
  // framing
  | 'frame_too_large'
  | 'invalid_json_array'
  | 'invalid_utf8'
  | 'not_a_stream'
  // decoding
  | 'invalid_json'
  | 'unknown_dialect'
  | 'dialect_mismatch'
  // stream semantics
  | 'incomplete_stream'
  /**
   * A warning, never terminal: the stream stopped without its terminal event
   * (Chat's `data: [DONE]`) although the response was complete (every choice
   * had its finish_reason), as Hugging Face TGI and other compatible servers do.
   */
  | 'missing_terminal'
  | 'sequence_gap'
  | 'provider_error'
  | 'invalid_tool_arguments'
  // limits and faults
  | 'limit_exceeded'
  | 'source_error'
  | 'http_error'
  | 'invalid_option'
  | 'invalid_chunk'
  | 'aborted'
  | 'no_response'
  // writing
  /** An encoder in strict mode met something its target wire cannot carry. */
  | 'lossy_encoding';

/** Where in the input something happened. */
export interface Position {
  /** 0-based number of the frame (SSE event, array element, line) in the input. */
  frame: number;
  /** 0-based byte offset in the input where that frame began. */
  offset: number;
}

export interface StreamErrorOptions {
  /** Byte offset in the input, when known. */
  offset?: number;
  /** Frame number, when known. */
  frame?: number;
  /** Name of the limit or option involved, when relevant. */
  limit?: string;
  /** HTTP status of the failed Response the error came from (see StreamError.status). */
  status?: number;
  cause?: unknown;
}

/** Base class of every error wirefold throws or destroys a stream with. */
export class StreamError extends Error {
  /** One of ErrorCode, or a provider's own code for errors raised from provider `error` events in strict mode. */
  readonly code: ErrorCode | (string & {});
  readonly offset: number | undefined;
  readonly frame: number | undefined;
  readonly limit: string | undefined;
  /**
   * HTTP status of the fetch Response whose body was being read, when that
   * status was not 2xx (`events()` / `finals()` in strict mode): 429, 529, …
   * whether the body explained the failure or not. Undefined otherwise.
   */
  status: number | undefined;

  constructor(code: ErrorCode | (string & {}), message: string, options: StreamErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StreamError';
    this.code = code;
    this.offset = options.offset;
    this.frame = options.frame;
    this.limit = options.limit;
    this.status = options.status;
  }
}

/** A line, frame or array element grew past `maxFrameBytes`. */
export class FrameTooLargeError extends StreamError {
  readonly maxFrameBytes: number;
  constructor(maxFrameBytes: number, offset: number, frame?: number) {
    super(
      'frame_too_large',
      `frame starting at byte ${offset} exceeds maxFrameBytes (${maxFrameBytes} bytes)`,
      { offset, limit: 'maxFrameBytes', ...(frame === undefined ? {} : { frame }) },
    );
    this.name = 'FrameTooLargeError';
    this.maxFrameBytes = maxFrameBytes;
  }
}

/** A JSON array (Gemini default framing) is not well-formed. */
export class JsonArrayError extends StreamError {
  /** What the framer expected to find at `offset`. */
  readonly expected: string;
  constructor(expected: string, found: string, offset: number, frame?: number) {
    super('invalid_json_array', `invalid JSON array at byte ${offset}: expected ${expected}, found ${found}`, {
      offset,
      ...(frame === undefined ? {} : { frame }),
    });
    this.name = 'JsonArrayError';
    this.expected = expected;
  }
}

/** A source gave a chunk that is neither bytes nor a string (an object, a number, an ArrayBuffer). */
export class ChunkTypeError extends StreamError {
  constructor(chunk: unknown) {
    super('invalid_chunk', `a chunk must be bytes (a Buffer or another Uint8Array) or a string, got ${describeValue(chunk)}`);
    this.name = 'ChunkTypeError';
  }
}

/** `null`, `number 42`, `an ArrayBuffer`, `an object`: what a value is, briefly, for messages. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return `${typeof value}${typeof value === 'number' || typeof value === 'boolean' ? ` ${String(value)}` : ''}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a${/^[AEIOU]/.test(name) ? 'n' : ''} ${name}` : 'an object';
}

/** A configured limit (other than maxFrameBytes) was exceeded. */
export class LimitExceededError extends StreamError {
  constructor(limit: string, value: number, message: string, options: StreamErrorOptions = {}) {
    super('limit_exceeded', `${message} (${limit} = ${value})`, { ...options, limit });
    this.name = 'LimitExceededError';
  }
}

/** An option had a bad value; thrown synchronously by the factories. */
export class OptionError extends StreamError {
  /** `what` names the value in the message: the option by default, or an argument (`source`, `options`). */
  constructor(option: string, value: unknown, expected: string, what = `option ${option}`) {
    super('invalid_option', `${what}: expected ${expected}, got ${JSON.stringify(value) ?? String(value)}`, {
      limit: option,
    });
    this.name = 'OptionError';
  }

  /** An option name that no option has (`where` names the call: `createStream()`), with the likely intended one. */
  static unknown(option: string, where: string, suggestion: string | undefined): OptionError {
    const err = new OptionError(option, undefined, '');
    err.message = `unknown option ${JSON.stringify(option)} for ${where}${suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`}`;
    return err;
  }
}

/**
 * Reading was stopped by an AbortSignal (the `signal` option) or by leaving a
 * `read()` loop early. Named `AbortError`, as the platform's own, so that
 * `err.name === 'AbortError'` checks written for fetch keep working; `cause`
 * is the signal's reason.
 */
export class AbortError extends StreamError {
  constructor(message = 'reading was aborted', cause?: unknown) {
    super('aborted', message, cause === undefined ? {} : { cause });
    this.name = 'AbortError';
  }
}

/** Short printable description of a byte for error messages. */
export function describeByte(byte: number | undefined): string {
  if (byte === undefined) return 'end of input';
  if (byte >= 0x20 && byte < 0x7f) return JSON.stringify(String.fromCharCode(byte));
  return `byte 0x${byte.toString(16).padStart(2, '0')}`;
}
