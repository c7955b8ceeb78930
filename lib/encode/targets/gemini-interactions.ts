/**
 * Unified events → Gemini Interactions API SSE (`event: <event_type>` +
 * `data: {…, event_type}`): `interaction.created`, steps opened with
 * `step.start`, filled with `step.delta` and closed with `step.stop`
 * (indices dense from 0, every step closed), then `interaction.completed`
 * with the status and the usage, and `event: done` / `data: [DONE]`.
 *
 * - Steps: text is a `model_output` step (`text` deltas), reasoning a
 *   `thought` step (`thought_summary` deltas), audio a `model_output` step
 *   of `audio` deltas, an image file a step with one `image` delta; a text,
 *   thought or audio step closes when another step starts (a later delta of
 *   its block opens a new one). A client call is a `function_call` step
 *   (`arguments: {}` at its start, `arguments_delta`s as they come), open
 *   until its `tool_call_done`; input that does not build a JSON object (a
 *   free-form custom tool) waits for its done and goes out as `{"input": …}`
 *   (`tool_input`).
 * - Usage on `interaction.completed`: unified inputTokens as
 *   `total_input_tokens`, outputTokens less the reasoning as
 *   `total_output_tokens` (thoughts are counted apart, as in
 *   generateContent), unknown counts left out (no usage: none). From the
 *   Interactions family itself the usage goes out as it came.
 * - Status: completed, requires_action (a client call is in the output),
 *   incomplete (max_tokens); the family's own status as it came. A refusal
 *   and other stops have no status: completed, reported (`stop_reason`).
 * - Server-run tool steps and their results: the family's own as steps of
 *   their type (`google_search_call` / `_result`…, MCP `mcp_server_tool_call`
 *   named after its tool), whole; others' reported.
 * - Signatures (`thought_signature` deltas) only from this family; citations:
 *   `text_annotation_delta` on the step of their text (offsets in UTF-8
 *   bytes of the step's text), the family's own annotations as they came,
 *   others as `url_citation` (else `file_citation`), cited text reported.
 * - Errors: the stream's `event: error` (`{error: {code, message}}`, the
 *   js-genai ErrorEvent) after the open steps are closed; its usage has no
 *   place (reported). The family's own failure event goes out as it came (a
 *   failed `interaction.completed` keeps its usage).
 */
import { assertNever, type CitationEvent, type ErrorEvent, type Json, type JsonObject, type StopReason, type UnifiedEvent, type UsageEvent } from '../../events.js';
import { isObject } from '../../dialects/helpers.js';
import { byteLength } from '../../bytes/index.js';
import { decodeBody, defineTarget, piece, sseEvent, type TargetContext, type TargetResponse } from '../target.js';
import { loseNotice } from '../notices.js';
import { argumentsObject } from '../tool-args.js';

const FAMILY = ['gemini-interactions'] as const;

/** The family's server-run tool steps by call name (any other name: an MCP server tool). */
const SERVER_STEPS: Record<string, string> = {
  code_execution: 'code_execution',
  google_search: 'google_search',
  url_context: 'url_context',
  google_maps: 'google_maps',
  file_search: 'file_search',
  retrieval: 'retrieval',
};

const STATUS: Record<Exclude<StopReason, 'error'>, string> = {
  end: 'completed',
  tool_use: 'requires_action',
  max_tokens: 'incomplete',
  refusal: 'completed',
  other: 'completed',
};

/** Interaction statuses and the stop reason our reader gives each. */
const STATUS_READS: Record<string, StopReason> = {
  completed: 'end',
  requires_action: 'tool_use',
  incomplete: 'max_tokens',
  budget_exceeded: 'max_tokens',
  cancelled: 'other',
  requires_continuation: 'other',
  in_progress: 'other',
};

type StepKind = 'text' | 'thought' | 'audio' | 'call' | 'other';

interface Step {
  index: number;
  kind: StepKind;
  open: boolean;
  /** The unified block it holds (signatures and citations find their step by it). */
  block: number;
  /** Text steps: the text written (citation offsets; see raw); calls: the argument text written. */
  written: string;
  /** Text steps: deltas that came as the wire's bytes (latin1 view of their JSON string bodies), after `written`, decoded when a citation asks. */
  raw: string;
  /** Calls: free-form input held until the done. */
  freeform: string | null;
}

/** Unified usage → interaction.usage (null when no count is known). */
export function interactionsUsageOf(u: UsageEvent): JsonObject | null {
  const out: JsonObject = {};
  if (u.inputTokens !== null) out['total_input_tokens'] = u.inputTokens;
  if (u.outputTokens !== null) {
    out['total_output_tokens'] = u.outputTokens - (u.reasoningTokens ?? 0);
    if (u.reasoningTokens !== null) out['total_thought_tokens'] = u.reasoningTokens;
  }
  if (u.cachedInputTokens !== null) out['total_cached_tokens'] = u.cachedInputTokens;
  if (u.totalTokens !== null) out['total_tokens'] = u.totalTokens;
  return Object.keys(out).length === 0 ? null : out;
}

function event(ctx: TargetContext, type: string, data: JsonObject): void {
  ctx.write(sseEvent(type, { ...data, event_type: type }));
}

function errorEvent(ctx: TargetContext, ev: Pick<ErrorEvent, 'code' | 'message'>): void {
  event(ctx, 'error', { error: { code: ev.code, message: ev.message } });
}

/** UTF-8 length of a string. */
const utf8 = (s: string): number => byteLength(s);

/** A step.delta event's fixed text around its index and its text (most of what the target writes). */
const DELTA_HEAD = piece('event: step.delta\ndata: {"index":');
const TEXT_FIELDS = piece(',"delta":{"type":"text","text":"');
const TEXT_END = piece('"},"event_type":"step.delta"}\n\n');
const THOUGHT_FIELDS = piece(',"delta":{"type":"thought_summary","content":{"type":"text","text":"');
const THOUGHT_END = piece('"}},"event_type":"step.delta"}\n\n');

/**
 * One response being written. A class, not a closure per step: a log of short responses makes one
 * a response (see openai-chat.ts).
 */
class InteractionsResponse implements TargetResponse {
  private id: string | null = null;
  private model: string | null = null;
  private sameFamily = false;
  private started = false;
  private ended = false;
  private usage: UsageEvent | null = null;
  private failure: Pick<ErrorEvent, 'code' | 'message' | 'raw'> | null = null;
  private nextIndex = 0;
  private wroteCall = false;
  /** Unified key → its current step. */
  private readonly steps = new Map<string, Step>();
  /** Every text step of a unified text block, in order (citations). */
  private readonly textSteps = new Map<number, Step[]>();
  /** The open text, thought or audio step (at most one). */
  private flowing: Step | null = null;
  private readonly openCalls: Step[] = [];
  /** The step of each unified block index most recently opened (signatures). */
  private readonly byBlock = new Map<number, Step>();
  /** The family's own server calls, written whole as their step at their done (by call id), and the names of those written. */
  private readonly hosted = new Map<string, { block: number; signature: string | null }>();
  private readonly hostedNames = new Map<string, string>();
  /** Citations of a text block that has no step yet, by block. */
  private readonly citeLater = new Map<number, CitationEvent[]>();

  constructor(private readonly ctx: TargetContext) {}

  // its deltas' text is read only through ctx.writeDelta and ctx.rawBody (a text step's, for citations, decoded when one asks)
  readonly rawDeltas = 'all';

  private event(type: string, data: JsonObject): void {
    event(this.ctx, type, data);
  }

  private interaction(status: string): JsonObject {
    const out: JsonObject = {};
    if (this.id !== null) out['id'] = this.id;
    out['status'] = status;
    out['object'] = 'interaction';
    if (this.model !== null) out['model'] = this.model;
    return out;
  }

  private begin(): void {
    if (this.started) return;
    this.started = true;
    this.event('interaction.created', { interaction: this.interaction('in_progress') });
    if (this.id !== null) this.event('interaction.status_update', { interaction_id: this.id, status: 'in_progress' });
  }

  private open(key: string, kind: StepKind, block: number, step: JsonObject): Step {
    this.begin();
    const s: Step = { index: this.nextIndex++, kind, open: true, block, written: '', raw: '', freeform: null };
    this.steps.set(key, s);
    this.byBlock.set(block, s);
    this.event('step.start', { index: s.index, step });
    return s;
  }

  private close(s: Step): void {
    if (!s.open) return;
    // citations that came before their text (Anthropic's): the step's text is complete now
    const waiting = s.kind === 'text' ? this.citeLater.get(s.block) : undefined;
    if (waiting !== undefined) {
      this.citeLater.delete(s.block);
      for (const ev of waiting) this.citation(ev);
    }
    s.open = false;
    this.event('step.stop', { index: s.index });
  }

  private closeFlowing(): void {
    if (this.flowing !== null) this.close(this.flowing);
    this.flowing = null;
  }

  private closeAll(): void {
    this.closeFlowing();
    for (const s of this.openCalls) this.close(s);
    this.openCalls.length = 0;
  }

  private stepDelta(s: Step, d: JsonObject): void {
    this.event('step.delta', { index: s.index, delta: d });
  }

  /** The open step of a text, thought or audio block, opening one (and closing the other) when needed. */
  private flow(kind: 'text' | 'thought' | 'audio', block: number): Step {
    // an open step of such a block is always the flowing one (the only other opener, a lone signature's, closes its step at once)
    const f = this.flowing;
    if (f !== null && f.block === block && f.kind === kind && f.open) return f;
    const key = `${kind}:${block}`;
    const current = this.steps.get(key);
    if (current !== undefined && current.open) return current;
    this.closeFlowing();
    const s = this.open(key, kind, block, { type: kind === 'thought' ? 'thought' : 'model_output' });
    this.flowing = s;
    if (kind === 'text') {
      let list = this.textSteps.get(block);
      if (list === undefined) this.textSteps.set(block, (list = []));
      list.push(s);
    }
    return s;
  }

  /** A text delta: its step's text kept for citations (as the wire's bytes when it came so, decoded when asked). */
  private textDelta(block: number, text: string): void {
    const s = this.flow('text', block);
    const raw = this.ctx.rawBody(text);
    if (raw !== null) s.raw += raw;
    else s.written = this.textOf(s) + text;
    this.ctx.writeDelta(DELTA_HEAD, s.index, TEXT_FIELDS, text, TEXT_END);
  }

  private thoughtDelta(block: number, text: string): void {
    this.ctx.writeDelta(DELTA_HEAD, this.flow('thought', block).index, THOUGHT_FIELDS, text, THOUGHT_END);
  }

  /** A text step's text so far, decoded. */
  private textOf(s: Step): string {
    if (s.raw !== '') {
      s.written += decodeBody(s.raw);
      s.raw = '';
    }
    return s.written;
  }

  private callStep(callId: string, name: string, block: number): Step {
    const key = `call:${callId}`;
    const current = this.steps.get(key);
    if (current !== undefined) return current;
    this.closeFlowing();
    this.wroteCall = true;
    const s = this.open(key, 'call', block, { type: 'function_call', id: callId, name, arguments: {} });
    this.openCalls.push(s);
    return s;
  }

  private argsDelta(s: Step, text: string): void {
    s.written += text;
    this.stepDelta(s, { type: 'arguments_delta', arguments: text });
  }

  /** A server-run tool step of the family, whole: `<tool>_call` (MCP: `mcp_server_tool_call` with the tool's name). */
  private hostedCall(callId: string, name: string, block: number, args: string, sig: string | null): void {
    const { args: value, wrapped } = argumentsObject(args);
    if (wrapped) this.ctx.lose('tool_input', `input of ${name} that is not a JSON object, written as {"input": …}`);
    const tool = SERVER_STEPS[name];
    const step: JsonObject = { type: `${tool ?? 'mcp_server_tool'}_call`, id: callId };
    if (tool === undefined) step['name'] = name;
    if (sig !== null) step['signature'] = sig;
    step['arguments'] = value;
    this.closeFlowing();
    this.hostedNames.set(callId, name);
    this.close(this.open(`hosted:${callId}`, 'other', block, step));
  }

  /** Its result step (`<tool>_result`); false for a result of a call not written here. */
  private hostedResult(ev: { id: string; name: string; index: number; result: Json; isError?: true }): boolean {
    const name = this.hostedNames.get(ev.id);
    if (name === undefined) return false;
    const tool = SERVER_STEPS[name];
    const step: JsonObject = { type: `${tool ?? 'mcp_server_tool'}_result`, call_id: ev.id };
    if (tool === undefined) step['name'] = name;
    step['result'] = ev.result;
    if (ev.isError === true) step['is_error'] = true;
    this.closeFlowing();
    this.close(this.open(`result:${ev.id}`, 'other', ev.index, step));
    return true;
  }

  private signature(block: number, sig: string): void {
    for (const h of this.hosted.values()) {
      if (h.block === block && h.signature === null) {
        h.signature = sig;
        return;
      }
    }
    const s = this.byBlock.get(block);
    if (s !== undefined && s.open) {
      this.stepDelta(s, { type: 'thought_signature', signature: sig });
      return;
    }
    // a block with nothing but its signature: a thought step of its own
    this.closeFlowing();
    const t = this.open(`thought:${block}`, 'thought', block, { type: 'thought' });
    this.stepDelta(t, { type: 'thought_signature', signature: sig });
    this.close(t);
  }

  private citation(ev: CitationEvent): void {
    const list = this.textSteps.get(ev.index) ?? [];
    if (list.length === 0) {
      let waiting = this.citeLater.get(ev.index);
      if (waiting === undefined) this.citeLater.set(ev.index, (waiting = []));
      waiting.push(ev);
      return;
    }
    if (this.sameFamily && isObject(ev.raw) && list[0]!.open) {
      // the family's own annotation, offsets already the step's
      this.stepDelta(list[0]!, { type: 'text_annotation_delta', annotations: [ev.raw] });
      return;
    }
    let a: JsonObject;
    if (ev.url !== undefined) {
      a = { type: 'url_citation', url: ev.url };
      if (ev.title !== undefined) a['title'] = ev.title;
    } else {
      a = { type: 'file_citation' };
      if (ev.source !== undefined) a['source'] = ev.source;
      if (ev.title !== undefined) a['file_name'] = ev.title;
    }
    if (ev.citedText !== undefined) this.ctx.lose('citation', `the cited text of ${ev.url ?? ev.source ?? ev.title ?? 'a citation'}`);
    // offsets of the block (UTF-16) → UTF-8 bytes of the step holding the range
    let target = list[list.length - 1]!;
    if (ev.start !== undefined && ev.end !== undefined) {
      let base = 0;
      for (const s of list) {
        const written = this.textOf(s);
        if (ev.start >= base && ev.end <= base + written.length) {
          target = s;
          a['start_index'] = utf8(written.slice(0, ev.start - base));
          a['end_index'] = utf8(written.slice(0, ev.end - base));
          break;
        }
        base += written.length;
      }
      if (a['end_index'] === undefined) this.ctx.lose('citation', `the offsets of ${ev.url ?? ev.source ?? ev.title ?? 'a citation'} (across steps)`);
    }
    if (target.open) {
      this.stepDelta(target, { type: 'text_annotation_delta', annotations: [a] });
      return;
    }
    // its text step is over (a response-level citation): a step of its own, without the offsets of a text it does not hold
    if (a['end_index'] !== undefined) this.ctx.lose('citation', `the offsets of ${ev.url ?? ev.source ?? ev.title ?? 'a citation'} (its text step was closed)`);
    delete a['start_index'];
    delete a['end_index'];
    this.closeFlowing();
    const s = this.open(`cite:${this.nextIndex}`, 'other', ev.index, { type: 'model_output' });
    this.stepDelta(s, { type: 'text_annotation_delta', annotations: [a] });
    this.close(s);
  }

  private usageOut(): JsonObject | null {
    if (this.usage === null) return null;
    if (this.sameFamily && isObject(this.usage.raw)) return this.usage.raw;
    if (this.usage.outputTokens === null && this.usage.reasoningTokens !== null) this.ctx.lose('usage', 'reasoning tokens without an output count');
    return interactionsUsageOf(this.usage);
  }

  private status(stopReason: Exclude<StopReason, 'error'>, providerReason: string | null): string {
    if (this.sameFamily && providerReason !== null && STATUS_READS[providerReason] === stopReason) return providerReason;
    if (stopReason === 'end' || stopReason === 'tool_use') {
      if (stopReason === 'tool_use' && !this.wroteCall) this.ctx.lose('stop_reason', 'tool_use without a client call written as completed');
      return this.wroteCall ? 'requires_action' : 'completed';
    }
    if (stopReason === 'refusal' || stopReason === 'other') {
      this.ctx.lose('stop_reason', `${stopReason}${providerReason === null ? '' : ` (${providerReason})`} written as completed`);
    }
    return STATUS[stopReason];
  }

  /** Citations whose text never came. */
  private uncited(): void {
    for (const list of this.citeLater.values()) for (const ev of list) this.ctx.lose('citation', `${ev.url ?? ev.source ?? ev.title ?? 'a citation'} (no text to cite)`);
    this.citeLater.clear();
  }

  private complete(stat: string): void {
    this.begin();
    this.closeAll();
    this.uncited();
    const i = this.interaction(stat);
    const u = this.usageOut();
    if (u !== null) i['usage'] = u;
    this.event('interaction.completed', { interaction: i });
    this.ctx.write('event: done\ndata: [DONE]\n\n');
    this.ended = true;
  }

  /**
   * The response failed: the family's own failure event as it came (a failed
   * interaction.completed keeps its usage), else the stream's `error` event
   * (no place for the usage: reported).
   */
  private fail(reason: Pick<ErrorEvent, 'code' | 'message'>): void {
    this.begin();
    this.closeAll();
    this.uncited();
    this.ended = true;
    const raw = this.failure?.raw;
    const type = isObject(raw) ? raw['event_type'] : undefined;
    if (this.sameFamily && isObject(raw) && (type === 'error' || type === 'interaction.completed')) {
      this.ctx.write(sseEvent(type, raw));
      if (type === 'interaction.completed') this.ctx.write('event: done\ndata: [DONE]\n\n');
      return;
    }
    errorEvent(this.ctx, this.failure ?? reason);
    if (this.usage !== null) this.ctx.lose('usage', 'the usage of a failed response (an error event has no place for it)');
  }

  delta(reasoning: boolean, index: number, _contentIndex: number, text: string): void {
    if (this.ended) return;
    if (reasoning) this.thoughtDelta(index, text);
    else this.textDelta(index, text);
  }

  push(ev: UnifiedEvent): void {
    if (this.ended) return;
    if (ev.choice !== undefined && ev.choice !== 0) {
      this.ctx.lose('choice', `events of choice ${ev.choice} (an interaction has one output)`);
      return;
    }
    switch (ev.type) {
      case 'start':
        this.id = ev.id === '' ? null : ev.id;
        this.model = ev.model;
        this.sameFamily = ev.dialect !== undefined && (FAMILY as readonly string[]).includes(ev.dialect);
        this.begin();
        return;
      case 'text_delta':
        this.textDelta(ev.index, ev.text);
        return;
      case 'reasoning_delta':
        this.thoughtDelta(ev.index, ev.text);
        return;
      case 'signature':
        if (!this.sameFamily || ev.kind !== 'thought_signature') this.ctx.lose('signature', `a ${ev.kind} from another provider family`);
        else this.signature(ev.index, ev.signature);
        return;
      case 'tool_call_start':
        if (ev.providerExecuted !== true) this.callStep(ev.id, ev.name, ev.index);
        else if (this.sameFamily) this.hosted.set(ev.id, { block: ev.index, signature: null });
        else this.ctx.lose('provider_tool_call', `${ev.name} (run by the source provider)`);
        return;
      case 'tool_call_delta': {
        if (ev.providerExecuted === true || ev.argumentsDelta.length === 0) return;
        const s = this.callStep(ev.id, '', ev.index);
        // arguments_delta must build a JSON object: free-form input (it does not start as one) waits for its done
        if (s.freeform === null && s.written === '' && !/^\s*\{/.test(ev.argumentsDelta)) s.freeform = '';
        if (s.freeform !== null) s.freeform += ev.argumentsDelta;
        else this.argsDelta(s, ev.argumentsDelta);
        return;
      }
      case 'tool_call_done': {
        if (ev.providerExecuted === true) {
          const h = this.hosted.get(ev.id);
          if (h !== undefined) {
            this.hosted.delete(ev.id);
            this.hostedCall(ev.id, ev.name, ev.index, ev.arguments, h.signature);
          }
          return;
        }
        const s = this.callStep(ev.id, ev.name, ev.index);
        if (s.freeform !== null || (s.written === '' && !/^\s*\{/.test(ev.arguments))) {
          const { args, wrapped } = argumentsObject(ev.arguments);
          if (wrapped) this.ctx.lose('tool_input', `input of ${ev.name} that is not a JSON object, written as {"input": …}`);
          if (ev.arguments !== '') this.argsDelta(s, wrapped ? JSON.stringify(args) : ev.arguments);
        } else if (s.written === '') this.argsDelta(s, ev.arguments);
        else if (ev.arguments.startsWith(s.written)) {
          // the authoritative arguments: what the deltas did not already say
          const rest = ev.arguments.slice(s.written.length);
          if (rest.length > 0) this.argsDelta(s, rest);
        }
        this.close(s);
        return;
      }
      case 'tool_result':
        if (!this.sameFamily || !this.hostedResult(ev)) this.ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name}`);
        return;
      case 'citation':
        this.citation(ev);
        return;
      case 'file': {
        if (ev.partial === true) return;
        if (ev.mimeType !== null && !ev.mimeType.startsWith('image/')) {
          this.ctx.lose('file', `a ${ev.mimeType} of ${ev.data.length} base64 characters (image deltas only)`);
          return;
        }
        this.closeFlowing();
        const s = this.open(`file:${this.nextIndex}`, 'other', ev.index, { type: 'model_output' });
        const d: JsonObject = { type: 'image', data: ev.data };
        if (ev.mimeType !== null) d['mime_type'] = ev.mimeType;
        this.stepDelta(s, d);
        this.close(s);
        return;
      }
      case 'audio_delta': {
        const d: JsonObject = { type: 'audio', data: ev.data };
        if (ev.mimeType !== null) d['mime_type'] = ev.mimeType;
        this.stepDelta(this.flow('audio', ev.index), d);
        return;
      }
      case 'usage':
        this.usage = ev;
        return;
      case 'error':
        // held for the failed interaction.completed, which carries the usage too
        if (ev.terminal) this.failure ??= ev;
        else this.ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done':
        for (const c of ev.choices ?? []) if (c.choice !== 0) this.ctx.lose('choice', `the stop reason of choice ${c.choice}`);
        if (ev.stopReason === 'error') {
          this.fail({ code: 'api_error', message: `the response ended with an error${ev.providerReason === null ? '' : ` (${ev.providerReason})`}` });
        } else this.complete(this.status(ev.stopReason, ev.providerReason));
        return;
      case 'raw':
      case 'session':
      case 'steer':
      case 'tool_call_cancel':
      case 'input_transcript':
      case 'segment':
      case 'notice':
        loseNotice(ev, this.ctx);
        return;
      default:
        assertNever(ev);
    }
  }

  abort(): void {
    if (!this.ended) this.fail({ code: 'incomplete_stream', message: 'the source stream ended before the response was done' });
  }
}

function createResponse(ctx: TargetContext): TargetResponse {
  return new InteractionsResponse(ctx);
}

export const geminiInteractionsTarget = defineTarget({
  name: 'gemini-interactions',
  contentType: 'text/event-stream',
  family: FAMILY,
  passThrough: { dialects: FAMILY, framing: 'sse' },
  createResponse,
  writeError(ev, ctx) {
    errorEvent(ctx, ev);
  },
});
