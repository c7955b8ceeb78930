/**
 * unified events → the bytes of another wire (as text). Finds where each
 * response begins and ends (the accumulators' ResponseTracker), hands its
 * events to the target's handler, and closes a response the input cut
 * short. What the target cannot carry is counted per response and reported
 * when the response ends (`onLoss`), or fails the stream in strict mode.
 */
import { OptionError } from '../errors.js';
import type { UnifiedEvent } from '../events.js';
import { booleanOption, choiceOption, optionsObject } from '../options.js';
import type { Emit, Stage } from '../stage.js';
import { BEGIN, OUTSIDE, RESTART, ResponseTracker, isFinalDone } from '../accumulate/response.js';
import { serializeLanes } from '../accumulate/lanes.js';
import { LossLedger } from './loss.js';
import { loseNotice } from './notices.js';
import { TARGETS, targetNames } from './registry.js';
import { ByteOut, type KeptText } from './byte-out.js';
import { flat, jsonChars, jsonString, type TargetContext, type TargetDefinitionOf, type TargetResponse } from './target.js';
import { latin1ToUtf8 } from '../framing/utf8.js';
import { unescapeJson } from '../framing/json-text.js';
import type { EncoderOptions, LossReport, TargetName } from './types.js';

export interface ResolvedEncoderOptions {
  readonly to: TargetName;
  readonly strict: boolean;
  readonly onLoss: ((report: LossReport) => void) | undefined;
}

export function resolveEncoderOptions(options: EncoderOptions): ResolvedEncoderOptions {
  const o = optionsObject(options);
  if (o.to === undefined) throw new OptionError('to', o.to, `the target wire (${targetNames.join(', ')})`);
  const to = choiceOption<TargetName>('to', o.to, targetNames, o.to);
  if (o.onLoss !== undefined && typeof o.onLoss !== 'function') throw new OptionError('onLoss', o.onLoss, 'a function');
  return Object.freeze({ to, strict: booleanOption('strict', o.strict, false), onLoss: o.onLoss });
}

export function targetOf(name: TargetName): TargetDefinitionOf<TargetName> {
  return TARGETS.find((t) => t.name === name) as TargetDefinitionOf<TargetName>;
}

export function createEncoder(options: EncoderOptions): Stage<UnifiedEvent, string> {
  return makeEncoder(resolveEncoderOptions(options));
}

/**
 * The encoder as the fused pipeline (createStream({ to })) drives it: text deltas the reading side's
 * templates recognised can come without their event (see TextSink and RawTextSink in
 * dialects/types.ts), false when the event must be pushed instead.
 */
export interface EncoderStage extends Stage<UnifiedEvent, string> {
  /**
   * A text or reasoning delta of choice 0 (not a refusal), as push would take its event; `body`, when
   * given: its JSON string body as the source had it (written as it is when JSON.stringify would write it).
   */
  takeText(reasoning: boolean, index: number, contentIndex: number, text: string, emit: Emit<string>, body?: string): boolean;
  /** The same with the delta's JSON string body as its wire bytes (latin1 view of valid UTF-8). */
  takeRaw(reasoning: boolean, index: number, contentIndex: number, raw: string, emit: Emit<string>): boolean;
  /** Byte mode (makeEncoder's `bytes`): hands on what was written since the last flush, else nothing. */
  flush(emit: Emit<Uint8Array>): void;
}

/**
 * Whether `raw` (a body's JSON string characters) holds an escape JSON.stringify would not write
 * (`\/`, `\u` but for a control character without a short form, lowercase): a body holding one is
 * written from its decoded text, so that the bytes out do not depend on how the source escaped them.
 * (Characters it escapes cannot be in a body unescaped: the template admits no quote, backslash or
 * control character, and valid UTF-8 no lone surrogate.) Each escape is found with a native search
 * and passed whole (`\\/` is an escaped backslash, then a slash), where a regular expression tried
 * every character of every delta.
 */
function hasForeignEscape(raw: string): boolean {
  for (let i = raw.indexOf('\\'); i !== -1; i = raw.indexOf('\\', i + 2)) {
    const c = raw.charCodeAt(i + 1);
    if (c === 0x2f) return true; // \/
    if (c === 0x75) {
      // \u00XX: stringify's own only for U+0000-U+001F without a short form (\b \t \n \f \r), in lowercase
      if (raw.charCodeAt(i + 2) !== 0x30 || raw.charCodeAt(i + 3) !== 0x30) return true;
      const hi = raw.charCodeAt(i + 4);
      const lo = raw.charCodeAt(i + 5);
      const own = hi === 0x30 ? (lo >= 0x30 && lo <= 0x37) || lo === 0x62 || lo === 0x65 || lo === 0x66 : hi === 0x31 && ((lo >= 0x30 && lo <= 0x39) || (lo >= 0x61 && lo <= 0x66));
      if (!own) return true;
      i += 4;
    }
  }
  return false;
}

/**
 * `bytes`: the output goes into blocks of bytes, handed on by `flush` (push and end emit nothing), for
 * createStream({ to }), whose Transform writes bytes (see byte-out.ts).
 */
export function makeEncoder(options: ResolvedEncoderOptions, bytes = false): EncoderStage {
  const target = targetOf(options.to);
  const ledger = new LossLedger(options.to, options.strict);
  const tracker = new ResponseTracker();
  let out: Emit<string> = () => {};
  /**
   * The delta being taken by takeRaw (its text; with a target that reads deltas only through
   * writeText, in byte mode, its wire bytes themselves), its JSON string body as the source escaped it
   * (decoded when asked for) and as wire bytes (latin1 view).
   */
  let rawText: string | null = null;
  let rawChars: string | null = null;
  let rawBytes = '';
  /** rawBytes are the delta's (takeRaw), not a body given as text (takeText). */
  let wire = false;
  const byteOut = bytes ? new ByteOut() : null;
  /** A delta of this response may be given as its wire bytes (byte mode, and the response reads its text only so). */
  const undecoded = (r: TargetResponse, reasoning: boolean): boolean => byteOut !== null && (r.rawDeltas === 'all' || (r.rawDeltas === 'text' && !reasoning));
  let taken = false;
  const chars = (s: string): string => (s === rawText ? (rawChars ??= latin1ToUtf8(rawBytes)) : jsonChars(s));
  const wireOf = (s: string): boolean => wire && s === rawText;
  const ctx: TargetContext = {
    write: byteOut === null ? (text) => out(text) : (text) => byteOut.write(text),
    lose: (what, detail) => ledger.lose(what, detail),
    json: (s) => (s === rawText ? `"${chars(s)}"` : jsonString(s)),
    chars,
    writeText:
      byteOut === null
        ? (before, text, after, c) => out(before + (c ?? chars(text)) + after)
        : (before, text, after, c) => {
            byteOut.plain(before);
            if (wireOf(text)) byteOut.latin1(rawBytes);
            else byteOut.plain(c ?? chars(text));
            byteOut.plain(after);
          },
    writeAfter: byteOut === null ? (head, n, rest) => out(head.text + n + rest) : (head, n, rest) => byteOut.head(head, n, rest),
    writeDelta:
      byteOut === null
        ? (head, n, fields, text, after, c) => out(head.text + n + fields.text + (c ?? chars(text)) + after.text)
        : (head, n, fields, text, after, c) => {
            byteOut.piece(head);
            byteOut.num(n);
            byteOut.piece(fields);
            if (wireOf(text)) byteOut.latin1(rawBytes);
            else byteOut.plain(c ?? chars(text));
            byteOut.piece(after);
          },
    rawBody: (s) => (taken && s === rawText ? rawBytes : null),
    keep: byteOut === null ? keepChars : () => byteOut.keep(chars, (s) => (wireOf(s) ? rawBytes : null)),
  };
  function keepChars(): KeptText {
    let json = '';
    return {
      add(s) {
        const c = chars(s);
        json += c;
        return c;
      },
      empty: () => json === '',
      text: () => JSON.parse(`"${json}"`) as string,
      ref: () => (json = flat(json)),
    };
  }
  let response: TargetResponse | null = null;
  let responseId: string | null = null;

  function report(): void {
    const r = ledger.take(responseId);
    if (r !== null) options.onLoss?.(r);
  }

  function endResponse(): void {
    response = null;
    byteOut?.forget();
    report();
    responseId = null;
  }

  // Laned events (several responses open at once, docs/lanes.md): each lane's response is
  // encoded whole when it is done, one after another in order of completion.
  const lanes = serializeLanes(() => tracker.open);
  function encode(ev: UnifiedEvent): void {
    const step = tracker.step(ev);
    if (step === RESTART && response !== null) {
      response.abort();
      endResponse();
    }
    if (step === OUTSIDE) {
      // between responses: an error that ends the stream is written in the wire's own form (a
      // warning such as a realtime session's recoverable error has none), the rest is counted
      if (ev.type === 'error') ev.terminal ? target.writeError(ev, ctx) : ledger.lose('error', `${ev.code}: ${ev.message}`);
      else if (ev.type === 'usage') ledger.lose('raw', 'usage outside any response');
      else response === null ? outside(ev) : response.push(ev);
      return;
    }
    if (step === BEGIN || step === RESTART || response === null) response = target.createResponse(ctx);
    // Fields of a transcription no target's wire has: reported here, once for all targets.
    if (ev.type === 'usage' && ev.durationSeconds !== undefined) ledger.lose('usage', `${ev.durationSeconds} seconds billed`);
    if (ev.type === 'done' && ev.language !== undefined) ledger.lose('language', ev.language);
    if (ev.type === 'start') {
      responseId = ev.id;
      // the wire has no lanes: the response comes whole, its lane (and agent) named nowhere
      if (ev.streamId !== undefined) ledger.lose('lane', `lane ${ev.streamId}${ev.agent === undefined ? '' : ` (agent ${ev.agent})`}`);
    }
    response.push(ev);
    if (ev.type === 'done' && isFinalDone(ev)) endResponse();
  }

  /** The event of a delta taken without one (the sink is called only inside a response, unlaned). */
  function delta(reasoning: boolean, index: number, contentIndex: number, text: string): UnifiedEvent {
    if (reasoning) return contentIndex === -1 ? { type: 'reasoning_delta', index, text } : { type: 'reasoning_delta', index, contentIndex, text };
    return contentIndex === -1 ? { type: 'text_delta', index, text } : { type: 'text_delta', index, contentIndex, text };
  }

  /**
   * A delta taken inside the open unlaned response: what lanes.push and encode do with its event (it
   * passes the lanes at once, the tracker stays inside, nothing to report), the response taking it
   * without the event when it can.
   */
  function take(r: TargetResponse, reasoning: boolean, index: number, contentIndex: number, text: string): void {
    if (r.delta !== undefined) r.delta(reasoning, index, contentIndex, text);
    else r.push(delta(reasoning, index, contentIndex, text));
  }

  return {
    push(ev, emit) {
      out = emit;
      lanes.push(ev, encode);
    },
    takeText(reasoning, index, contentIndex, text, emit, body) {
      if (!tracker.open || response === null) return false;
      out = emit;
      if (body === undefined || hasForeignEscape(body)) {
        take(response, reasoning, index, contentIndex, text);
        return true;
      }
      // the body is the text's JSON characters as JSON.stringify writes them: written as it is
      rawText = text;
      rawChars = body;
      try {
        take(response, reasoning, index, contentIndex, text);
      } finally {
        rawText = null;
      }
      return true;
    },
    takeRaw(reasoning, index, contentIndex, raw, emit) {
      if (!tracker.open || response === null || hasForeignEscape(raw)) return false;
      out = emit;
      rawBytes = raw;
      wire = true;
      taken = undecoded(response, reasoning);
      if (taken) {
        rawText = raw;
        rawChars = null;
      } else {
        rawChars = latin1ToUtf8(raw);
        const b = rawChars.indexOf('\\');
        rawText = b === -1 ? rawChars : unescapeJson(rawChars, b);
      }
      const text = rawText;
      try {
        take(response, reasoning, index, contentIndex, text);
      } finally {
        rawText = null;
        taken = false;
        wire = false;
      }
      return true;
    },
    flush(emit) {
      byteOut?.flush(emit);
    },
    end(emit) {
      out = emit;
      lanes.end(encode);
      if (response !== null) {
        response.abort();
        endResponse();
        tracker.reset();
      }
      target.end?.(ctx);
      report();
    },
  };

  function outside(ev: UnifiedEvent): void {
    switch (ev.type) {
      case 'raw':
      case 'session':
      case 'tool_call_cancel':
      case 'input_transcript':
      case 'segment':
      case 'notice':
      case 'steer':
        loseNotice(ev, ledger);
    }
  }
}
