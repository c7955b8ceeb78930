/**
 * unified events → one FinalResult per response. Combines the text, tool
 * argument, usage, signature and audio accumulators and resets after each
 * response (a log holds many).
 *
 * Response boundaries are those of ResponseTracker (response.ts). Events that
 * belong to no response are handled so:
 * - `raw`, `session`, `tool_call_cancel`: not reflected in any final (an
 *   agent session's `session` events make its own `kind: 'session'` final
 *   instead, see session.ts);
 * - a `file` flagged `partial` (a preview): not in the final either;
 * - `error`, `usage` and `input_transcript` while no response is open:
 *   carried into the next response's final; errors left when input ends make one final of their
 *   own (no dialect, no content, stopReason `error`), so final mode never
 *   drops them; a usage left alone appears in no final.
 *
 * Content: text deltas flagged `transcript` (audio transcripts) are visible
 * text. A signature attaches to the last reasoning block of its (choice,
 * index); when there is none, an Anthropic `signature_delta` /
 * `redacted_thinking` or an OpenAI `encrypted_content` becomes a reasoning
 * block with empty text (omitted thinking, a reasoning item without summary:
 * still a block to echo back), while a Gemini `thought_signature` stays only in
 * `signatures` (it may belong to a text or function-call part).
 *
 * Limits: exceeding one throws LimitExceededError; before throwing, the
 * partial final of the response is emitted with stopReason `error` and a
 * `limit_exceeded` error, so a consumer still sees what was received.
 */
import { LimitExceededError } from '../errors.js';
import { optionsObject } from '../options.js';
import type { DialectName, Json, StopReason, UnifiedEvent, UsageEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { assertNever } from '../events.js';
import type {
  ContentBlock,
  FileContentBlock,
  FinalAccumulatorOptions,
  FinalChoice,
  FinalCitation,
  FinalError,
  FinalNotice,
  FinalResult,
  FinalSegment,
  FinalToolCall,
  ReasoningContentBlock,
  ToolCallContentBlock,
  ToolResultContentBlock,
} from './types.js';
import { AudioTotals } from './audio.js';
import { BlockCounter, ByteMeter } from './limits.js';
import { byteLength } from '../bytes/index.js';
import { OUTSIDE, RESTART, BEGIN, ResponseTracker, isFinalDone } from './response.js';
import { LaneStages } from './lanes.js';
import { SessionTracker } from './session.js';
import { SignatureList } from './signatures.js';
import { TextStore, choiceOf, type TextBlock } from './text.js';
import { ToolCallStore, type ToolCall } from './tool-args.js';
import { resolveLimits, type Limits } from '../limits.js';
import { emptyUsage, usageOf } from './usage.js';

export interface FinalAccumulator extends Stage<UnifiedEvent, FinalResult> {
  /** Partial value of a tool call's arguments in the open response (a live tree: do not mutate). */
  preview(id: string, choice?: number): Json | undefined;
}

interface ChoiceState {
  /** Text blocks, tool calls, tool results and files in order of first appearance. */
  content: (TextBlock | ToolCall | ToolResultContentBlock | FileContentBlock)[];
  citations: FinalCitation[];
  stopReason: StopReason | null;
  providerReason: string | null;
}

function newChoice(): ChoiceState {
  return { content: [], citations: [], stopReason: null, providerReason: null };
}

function buildChoice(state: ChoiceState, stopReason: StopReason | null, providerReason: string | null): FinalChoice {
  const content: ContentBlock[] = [];
  const toolCalls: FinalToolCall[] = [];
  const texts: string[] = [];
  const refusals: string[] = [];
  const reasonings: string[] = [];
  for (const entry of state.content) {
    if (entry.type === 'tool_call') {
      const block: ToolCallContentBlock = { type: 'tool_call', id: entry.id, name: entry.name, arguments: entry.value };
      // The client runs only the calls the provider does not run itself.
      if (entry.providerExecuted) block.providerExecuted = true;
      else toolCalls.push({ id: entry.id, name: entry.name, arguments: entry.value });
      content.push(block);
      continue;
    }
    if (entry.type === 'tool_result' || entry.type === 'file') {
      content.push(entry);
      continue;
    }
    const text = entry.text();
    if (entry.type === 'text') {
      content.push({ type: 'text', text });
      texts.push(text);
    } else if (entry.type === 'refusal') {
      content.push({ type: 'refusal', text });
      refusals.push(text);
    } else {
      const block: ReasoningContentBlock = { type: 'reasoning', text };
      if (entry.signature !== null) block.signature = entry.signature;
      content.push(block);
      reasonings.push(text);
    }
  }
  return {
    content,
    text: texts.join(''),
    refusal: refusals.length === 0 ? null : refusals.join(''),
    reasoning: reasonings.join(''),
    toolCalls,
    citations: state.citations,
    stopReason,
    providerReason,
  };
}

export function createFinalAccumulator(options: FinalAccumulatorOptions = {}): FinalAccumulator {
  return makeFinalAccumulator(resolveLimits(optionsObject(options)));
}

/** The final accumulator with the fused pipeline's direct route for text deltas (see TextSink). */
export interface FusableFinalAccumulator extends FinalAccumulator {
  /** Takes a text or reasoning delta of choice 0 as `push` would take its event; false when the event must be pushed. */
  takeText(reasoning: boolean, index: number, contentIndex: number, text: string, emit: Emit<FinalResult>): boolean;
  /** The same with the delta as its wire bytes (see RawTextSink); false also when the string must be taken instead. */
  takeRaw(reasoning: boolean, index: number, contentIndex: number, raw: string, emit: Emit<FinalResult>): boolean;
}


/** The final accumulator from limits already resolved (`oneLane`: the accumulator of one lane, taking its events as unlaned). */
export function makeFinalAccumulator(limits: Limits, oneLane = false): FusableFinalAccumulator {
  const counter = new BlockCounter(limits.maxBlocks);
  const { maxTextBytes, maxToolArgumentBytes } = limits;
  const tracker = new ResponseTracker();
  // Agent session summaries: the root accumulator's, which sees every lane's events (a lane's own has none).
  const sessions: SessionTracker | null = oneLane ? null : new SessionTracker();
  // Laned events (streamId): one accumulator per lane, each final at its lane's done.
  const laned = new LaneStages<FusableFinalAccumulator, FinalResult>(
    () => makeFinalAccumulator(limits, true),
    (result, lane) => {
      result.streamId = lane;
    },
  );

  // State of the open response.
  let dialect: DialectName | null = null;
  let agent: string | undefined;
  // Agent session streams: the session and turn the response is (from its start).
  let session: string | undefined;
  let turn: string | undefined;
  let id: string | null = null;
  let model: string | null = null;
  let choices: ChoiceState[] = [newChoice()];
  let errors: FinalError[] = [];
  let usage: UsageEvent | null = null;
  // Transcription extras: none until their events come (the final then has the field).
  let inputTranscript: string[] | null = null;
  let segments: FinalSegment[] | null = null;
  let notices: FinalNotice[] | null = null;
  const signatures = new SignatureList();
  const audio = new AudioTotals();
  const text = new TextStore(maxTextBytes, counter, (block) => choiceState(block.choice).content.push(block));
  const tools = new ToolCallStore(
    maxToolArgumentBytes,
    counter,
    (error) => errors.push(error),
    (call) => choiceState(call.choice).content.push(call),
  );
  // Seen while no response was open; carried into the next one.
  let pendingErrors: FinalError[] = [];
  let pendingUsage: UsageEvent | null = null;
  let pendingInput: string[] = [];
  // What the user said counts against maxTextBytes like the response's own text (a meter of its own).
  const heard = new ByteMeter(maxTextBytes, 'maxTextBytes', 'input transcript of one response');
  const heardSoFar = { utf8Bytes: (): number => byteLength((inputTranscript ?? []).join('') + pendingInput.join('')) };

  function choiceState(k: number): ChoiceState {
    while (choices.length <= k) {
      // Every choice is an entry of `choices`: a huge index must not allocate without bound.
      if (choices.length >= counter.max) {
        throw new LimitExceededError('maxBlocks', counter.max, `choice index ${k} exceeds the block limit`);
      }
      choices.push(newChoice());
    }
    return choices[k] as ChoiceState;
  }

  function begin(): void {
    if (pendingErrors.length > 0) {
      errors = pendingErrors;
      pendingErrors = [];
    }
    if (pendingUsage !== null) {
      usage = pendingUsage;
      pendingUsage = null;
    }
    if (pendingInput.length > 0) {
      inputTranscript = pendingInput;
      pendingInput = [];
    }
  }

  function reset(): void {
    dialect = null;
    agent = undefined;
    session = undefined;
    turn = undefined;
    id = null;
    model = null;
    choices = [newChoice()];
    errors = [];
    usage = null;
    inputTranscript = null;
    segments = null;
    notices = null;
    heard.reset();
    signatures.reset();
    audio.reset();
    text.reset();
    tools.reset();
    counter.reset();
  }

  function build(stopReason: StopReason, providerReason: string | null, language?: string): FinalResult {
    tools.finishAll();
    const built = choices.map((state, k) =>
      k === 0 ? buildChoice(state, stopReason, providerReason) : buildChoice(state, state.stopReason, state.providerReason),
    );
    const first = built[0] as FinalChoice;
    const result: FinalResult = {
      dialect,
      id,
      model,
      content: first.content,
      text: first.text,
      refusal: first.refusal,
      reasoning: first.reasoning,
      toolCalls: first.toolCalls,
      citations: first.citations,
      usage: usage === null ? emptyUsage() : usageOf(usage),
      stopReason,
      providerReason,
      signatures: signatures.list,
      errors,
      audio: audio.result(),
    };
    if (inputTranscript !== null) result.inputTranscript = inputTranscript.join('');
    if (segments !== null) result.segments = segments;
    if (language !== undefined) result.language = language;
    if (notices !== null) result.notices = notices;
    if (built.length > 1) result.choices = built;
    if (agent !== undefined) result.agent = agent;
    if (session !== undefined) result.session = session;
    if (turn !== undefined) result.turn = turn;
    return result;
  }

  /** The partial final of an unfinished response, with the reason it ended. */
  function buildFailed(code: string, message: string): FinalResult {
    errors.push({ code, message });
    return build('error', null);
  }

  /** A limit tripped: the response ends here with what it had. */
  function failed(err: unknown, emit: Emit<FinalResult>): void {
    if (!(err instanceof LimitExceededError)) return;
    const result = buildFailed('limit_exceeded', err.message);
    reset();
    tracker.reset();
    emit(result);
  }

  function handle(ev: UnifiedEvent, emit: Emit<FinalResult>): void {
    const step = tracker.step(ev);
    if (step === RESTART) {
      const result = buildFailed('incomplete_stream', 'a new response started before the previous one was done');
      reset();
      emit(result);
      begin();
    } else if (step === BEGIN) {
      begin();
    }
    switch (ev.type) {
      case 'start':
        dialect = ev.dialect ?? null;
        agent = ev.agent;
        session = ev.session;
        turn = ev.turn;
        id = ev.id;
        model = ev.model;
        return;
      case 'text_delta':
        text.add(ev.refusal === true ? 'refusal' : 'text', choiceOf(ev.choice), ev.index, ev.contentIndex ?? -1, ev.text);
        return;
      case 'reasoning_delta':
        text.add('reasoning', choiceOf(ev.choice), ev.index, ev.contentIndex ?? -1, ev.text);
        return;
      case 'tool_call_start':
        tools.start(choiceOf(ev.choice), ev.index, ev.id, ev.name, ev.providerExecuted === true);
        return;
      case 'tool_call_delta':
        tools.delta(choiceOf(ev.choice), ev.index, ev.id, ev.argumentsDelta, ev.providerExecuted === true);
        return;
      case 'tool_call_done':
        tools.done(choiceOf(ev.choice), ev.index, ev.id, ev.name, ev.arguments, ev.providerExecuted === true);
        return;
      case 'tool_result': {
        counter.add();
        const block: ToolResultContentBlock = { type: 'tool_result', id: ev.id, name: ev.name, result: ev.result };
        if (ev.isError === true) block.isError = true;
        choiceState(choiceOf(ev.choice)).content.push(block);
        return;
      }
      case 'file': {
        if (ev.partial === true) return; // previews are events only
        counter.add();
        const block: FileContentBlock = { type: 'file', mimeType: ev.mimeType, data: ev.data };
        if (ev.id !== undefined) block.id = ev.id;
        choiceState(choiceOf(ev.choice)).content.push(block);
        return;
      }
      case 'citation': {
        counter.add();
        const c: FinalCitation = { index: ev.index };
        if (ev.url !== undefined) c.url = ev.url;
        if (ev.title !== undefined) c.title = ev.title;
        if (ev.source !== undefined) c.source = ev.source;
        if (ev.citedText !== undefined) c.citedText = ev.citedText;
        if (ev.start !== undefined) c.start = ev.start;
        if (ev.end !== undefined) c.end = ev.end;
        choiceState(choiceOf(ev.choice)).citations.push(c);
        return;
      }
      case 'signature': {
        const k = choiceOf(ev.choice);
        signatures.add(ev.index, ev.signature, ev.kind);
        let block = text.reasoningBlock(k, ev.index);
        // Anthropic (signature / redacted data) and OpenAI (encrypted_content) signatures are the
        // reasoning block itself when no text came (omitted thinking, no summary); a Gemini
        // thoughtSignature may belong to a text or function-call part instead.
        if (block === undefined && ev.kind !== 'thought_signature') block = text.addReasoningBlock(k, ev.index);
        if (block !== undefined) block.signature = ev.signature;
        return;
      }
      case 'usage':
        if (step === OUTSIDE) pendingUsage = ev;
        else usage = ev;
        return;
      case 'error':
        if (step === OUTSIDE) pendingErrors.push({ code: ev.code, message: ev.message });
        else errors.push({ code: ev.code, message: ev.message });
        return;
      case 'audio_delta':
        audio.add(ev.mimeType, ev.data);
        return;
      case 'done':
        if (isFinalDone(ev)) {
          // Several choices: each one's stop reason (choice 0's is the done's own).
          if (ev.choices !== undefined) {
            for (const c of ev.choices) {
              const k = choiceOf(c.choice);
              if (k === 0) continue;
              const state = choiceState(k);
              state.stopReason = c.stopReason;
              state.providerReason = c.providerReason;
            }
          }
          const result = build(ev.stopReason, ev.providerReason, ev.language);
          reset();
          emit(result);
        } else {
          // A done of choice k > 0 alone (Gemini candidates): that choice's stop, the response goes on.
          const state = choiceState(choiceOf(ev.choice));
          state.stopReason = ev.stopReason;
          state.providerReason = ev.providerReason;
        }
        return;
      case 'input_transcript':
        heard.add(ev.text, heardSoFar);
        if (step === OUTSIDE) pendingInput.push(ev.text);
        else (inputTranscript ??= []).push(ev.text);
        return;
      case 'segment': {
        counter.add();
        const seg: FinalSegment = { text: ev.text };
        if (ev.id !== undefined) seg.id = ev.id;
        if (ev.start !== undefined) seg.start = ev.start;
        if (ev.end !== undefined) seg.end = ev.end;
        if (ev.speaker !== undefined) seg.speaker = ev.speaker;
        if (ev.channel !== undefined) seg.channel = ev.channel;
        (segments ??= []).push(seg);
        return;
      }
      case 'notice':
        (notices ??= []).push({ code: ev.code, message: ev.message });
        return;
      case 'raw':
      case 'session':
      case 'tool_call_cancel':
      case 'steer': // a failed steer's error comes as an error event
        return;
      default:
        assertNever(ev);
    }
  }

  const self: FusableFinalAccumulator = {
    push(ev, emit) {
      sessions?.push(ev, emit); // every lane's events: a subagent's turns are the session's too
      if (ev.streamId !== undefined && !oneLane) return laned.push(ev.streamId, ev, emit);
      try {
        handle(ev, emit);
      } catch (err) {
        failed(err, emit);
        throw err;
      }
    },
    takeText(reasoning, index, contentIndex, delta, emit) {
      // what push does with the text_delta / reasoning_delta event, when it is INSIDE an open response
      if (!tracker.open) return false;
      try {
        text.add(reasoning ? 'reasoning' : 'text', 0, index, contentIndex, delta);
      } catch (err) {
        failed(err, emit);
        throw err;
      }
      return true;
    },
    takeRaw(reasoning, index, contentIndex, raw, emit) {
      if (!tracker.open) return false;
      try {
        return text.addRaw(reasoning ? 'reasoning' : 'text', 0, index, contentIndex, raw);
      } catch (err) {
        failed(err, emit);
        throw err;
      }
    },
    end(emit) {
      laned.end(emit);
      if (!tracker.open) {
        // Errors after the last response (invalid JSON, an unknown dialect, …): a final of their own,
        // else final mode would drop them without a trace. (No response open: the state is a fresh one.)
        if (pendingErrors.length > 0) {
          begin();
          const result = build('error', null);
          reset();
          emit(result);
        }
        pendingUsage = null;
        pendingInput = [];
        sessions?.end(emit);
        return;
      }
      const result = buildFailed('incomplete_stream', 'input ended before the response was done');
      reset();
      tracker.reset();
      emit(result);
      sessions?.end(emit);
    },
    preview(callId, choice = 0) {
      const own = tools.get(callId, choice)?.preview();
      if (own !== undefined) return own;
      for (const lane of laned.lanes.values()) {
        const value = lane.preview(callId, choice);
        if (value !== undefined) return value;
      }
      return undefined;
    },
  };
  return self;
}
