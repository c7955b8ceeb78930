/**
 * Tool-call arguments: fragments per call (keyed by choice + id, as the events
 * key them), a lazy partial-JSON preview, and the authoritative text parsed
 * once at `tool_call_done`.
 */
import { assertNever, type Json, type UnifiedEvent } from '../events.js';
import { byteLength } from '../bytes/index.js';
import { optionsObject } from '../options.js';
import type { Emit, Stage } from '../stage.js';
import type { FinalError, ToolArgsAccumulatorOptions } from './types.js';
import { BlockCounter, ByteMeter, DEFAULT_MAX_BLOCKS, DEFAULT_MAX_TOOL_ARGUMENT_BYTES, limitOption, type Utf8Source } from './limits.js';
import { createPartialJson, type PartialJson } from './partial-json.js';
import { BEGIN, RESTART, ResponseTracker, isFinalDone } from './response.js';
import { choiceOf } from './text.js';

/** Parses arguments text the way the providers' SDKs do: blank means no arguments, `{}`. */
export function parseArguments(text: string): { ok: true; value: Json } | { ok: false; message: string } {
  if (text.length === 0 || (text.charCodeAt(0) <= 0x20 && text.trim().length === 0)) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

export class ToolCall implements Utf8Source {
  readonly type = 'tool_call';
  readonly choice: number;
  index: number;
  readonly id: string;
  name: string;
  /** Argument deltas, until the call is finished. */
  parts: string[] = [];
  /** The whole arguments text: from `tool_call_done` (authoritative), or the joined deltas once finished without one; null before. */
  text: string | null = null;
  /** `tool_call_done` has been seen. */
  done = false;
  /** The provider runs this call itself (see ToolCallStartEvent). */
  providerExecuted = false;
  /** The arguments have been parsed into `value` (at done, or at the end of the response). */
  finished = false;
  /** Parsed arguments (the raw text when invalid); meaningful once `finished`. */
  value: Json = null;
  readonly meter: ByteMeter;
  private parser: PartialJson | null = null;
  private fed = 0;

  constructor(choice: number, index: number, id: string, name: string, maxBytes: number) {
    this.choice = choice;
    this.index = index;
    this.id = id;
    this.name = name;
    this.meter = new ByteMeter(maxBytes, 'maxToolArgumentBytes', `arguments of tool call ${id}`);
  }

  utf8Bytes(): number {
    let bytes = 0;
    for (const part of this.parts) bytes += byteLength(part);
    return bytes;
  }

  /** Characters the preview parser has examined (diagnostics: equals the deltas' length, never more). */
  get scanned(): number {
    return this.parser === null ? 0 : this.parser.scanned;
  }

  /** The partial value so far; deltas are fed to the parser only when asked (nothing to pay otherwise). */
  preview(): Json | undefined {
    if (this.finished) return this.value;
    const parser = (this.parser ??= createPartialJson());
    const parts = this.parts;
    while (this.fed < parts.length) parser.write(parts[this.fed++] as string);
    return parser.value();
  }

  /** The arguments text: authoritative when done, else the deltas so far. */
  argumentsText(): string {
    if (this.text !== null) return this.text;
    const parts = this.parts;
    return parts.length === 1 ? (parts[0] as string) : parts.join('');
  }

  /** Parses the arguments once; returns an error message when they are not valid JSON. */
  finish(): string | null {
    if (this.finished) return null;
    const text = this.argumentsText();
    const parsed = parseArguments(text);
    this.finished = true;
    this.text = text;
    this.parts = [];
    this.parser = null;
    if (parsed.ok) {
      this.value = parsed.value;
      return null;
    }
    this.value = text;
    return `tool call ${this.id}${this.name === '' ? '' : ` (${this.name})`}: arguments are not valid JSON: ${parsed.message}`;
  }
}

/** All tool calls of one response. */
export class ToolCallStore {
  calls: ToolCall[] = [];
  /** Calls by id, one map per choice. */
  private byChoice: Map<string, ToolCall>[] = [];

  constructor(
    private readonly maxBytes: number,
    private readonly counter: BlockCounter,
    private readonly onError: (error: FinalError) => void,
    private readonly onCall?: (call: ToolCall) => void,
  ) {}

  start(choice: number, index: number, id: string, name: string, providerExecuted = false): void {
    const call = this.open(choice, index, id, name);
    if (name !== '') call.name = name;
    if (providerExecuted) call.providerExecuted = true;
  }

  delta(choice: number, index: number, id: string, text: string, providerExecuted = false): void {
    const call = this.open(choice, index, id, '');
    if (providerExecuted) call.providerExecuted = true;
    if (text.length === 0) return;
    call.meter.add(text, call);
    call.parts.push(text);
  }

  done(choice: number, index: number, id: string, name: string, args: string, providerExecuted = false): void {
    const call = this.open(choice, index, id, name);
    if (name !== '') call.name = name;
    if (providerExecuted) call.providerExecuted = true;
    call.meter.check(args);
    call.text = args;
    call.done = true;
    this.finish(call);
  }

  get(id: string, choice = 0): ToolCall | undefined {
    return this.byChoice[choice]?.get(id);
  }

  /** Parses a call's arguments if not done yet, reporting invalid JSON. */
  finish(call: ToolCall): void {
    const message = call.finish();
    if (message !== null) this.onError({ code: 'invalid_tool_arguments', message });
  }

  /** Finishes calls that never got a `tool_call_done` (from their concatenated deltas). */
  finishAll(): void {
    for (const call of this.calls) if (!call.finished) this.finish(call);
  }

  reset(): void {
    this.calls = [];
    this.byChoice = [];
  }

  /** The call with this key, or a new one (also when the previous call with this id is done: a new call reusing it). */
  private open(choice: number, index: number, id: string, name: string): ToolCall {
    let map = this.byChoice[choice];
    if (map === undefined) {
      map = new Map();
      this.byChoice[choice] = map;
    }
    let call = map.get(id);
    if (call === undefined || call.done) {
      this.counter.add();
      call = new ToolCall(choice, index, id, name, this.maxBytes);
      map.set(id, call);
      this.calls.push(call);
      this.onCall?.(call);
    }
    return call;
  }
}

/** A tool call as the tool-argument accumulator reports it. */
export interface ToolCallInfo {
  choice: number;
  index: number;
  id: string;
  name: string;
  /** `tool_call_done` was seen. */
  done: boolean;
  /** The arguments text (authoritative when done, else the deltas so far). */
  argumentsText: string;
  /** Parsed arguments once done (raw text when invalid), else undefined. */
  arguments: Json | undefined;
  /** The provider runs this call itself. */
  providerExecuted: boolean;
}

export interface ToolArgsAccumulator extends Stage<UnifiedEvent, UnifiedEvent> {
  /** Partial value of a call's arguments so far (a live tree: do not mutate); the parsed value once done. */
  preview(id: string, choice?: number): Json | undefined;
  /** The current (or last finished) response's calls in order. */
  calls(): ToolCallInfo[];
  /** `invalid_tool_arguments` errors of the current (or last finished) response. */
  errors(): FinalError[];
}

/**
 * Passes events through unchanged and keeps every tool call's arguments.
 * State resets when the next response begins. Calls that never got a
 * `tool_call_done` are parsed from their deltas when the response ends.
 */
export function createToolArgsAccumulator(options: ToolArgsAccumulatorOptions = {}): ToolArgsAccumulator {
  options = optionsObject(options);
  const counter = new BlockCounter(limitOption('maxBlocks', options.maxBlocks, DEFAULT_MAX_BLOCKS));
  const maxBytes = limitOption('maxToolArgumentBytes', options.maxToolArgumentBytes, DEFAULT_MAX_TOOL_ARGUMENT_BYTES);
  let errors: FinalError[] = [];
  const store = new ToolCallStore(maxBytes, counter, (e) => errors.push(e));
  const tracker = new ResponseTracker();

  return {
    push(ev: UnifiedEvent, emit: Emit<UnifiedEvent>) {
      const step = tracker.step(ev);
      if (step === BEGIN || step === RESTART) {
        store.reset();
        counter.reset();
        errors = [];
      }
      switch (ev.type) {
        case 'tool_call_start':
          store.start(choiceOf(ev.choice), ev.index, ev.id, ev.name, ev.providerExecuted === true);
          break;
        case 'tool_call_delta':
          store.delta(choiceOf(ev.choice), ev.index, ev.id, ev.argumentsDelta, ev.providerExecuted === true);
          break;
        case 'tool_call_done':
          store.done(choiceOf(ev.choice), ev.index, ev.id, ev.name, ev.arguments, ev.providerExecuted === true);
          break;
        case 'done':
          if (isFinalDone(ev)) store.finishAll();
          break;
        case 'start':
        case 'text_delta':
        case 'reasoning_delta':
        case 'signature':
        case 'usage':
        case 'error':
        case 'audio_delta':
        case 'tool_call_cancel':
        case 'tool_result':
        case 'citation':
        case 'file':
        case 'session':
        case 'steer':
        case 'input_transcript':
        case 'segment':
        case 'notice':
        case 'raw':
          break; // passes through
        default:
          assertNever(ev);
      }
      emit(ev);
    },
    end() {},
    preview(id, choice = 0) {
      return store.get(id, choice)?.preview();
    },
    calls() {
      return store.calls.map((c) => ({
        choice: c.choice,
        index: c.index,
        id: c.id,
        name: c.name,
        done: c.done,
        argumentsText: c.argumentsText(),
        arguments: c.finished ? c.value : undefined,
        providerExecuted: c.providerExecuted,
      }));
    },
    errors() {
      return errors;
    },
  };
}
