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
import { defineTarget, sseEvent, type TargetContext, type TargetResponse } from '../target.js';
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
  /** Text steps: the text written (citation offsets); calls: the argument text written. */
  written: string;
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

function createResponse(ctx: TargetContext): TargetResponse {
  let id: string | null = null;
  let model: string | null = null;
  let sameFamily = false;
  let started = false;
  let ended = false;
  let usage: UsageEvent | null = null;
  let failure: Pick<ErrorEvent, 'code' | 'message' | 'raw'> | null = null;
  let nextIndex = 0;
  let wroteCall = false;
  /** Unified key → its current step. */
  const steps = new Map<string, Step>();
  /** Every text step of a unified text block, in order (citations). */
  const textSteps = new Map<number, Step[]>();
  /** The open text, thought or audio step (at most one). */
  let flowing: Step | null = null;
  const openCalls: Step[] = [];
  /** The step of each unified block index most recently opened (signatures). */
  const byBlock = new Map<number, Step>();
  /** The family's own server calls, written whole as their step at their done (by call id), and the names of those written. */
  const hosted = new Map<string, { block: number; signature: string | null }>();
  const hostedNames = new Map<string, string>();
  /** Citations of a text block that has no step yet, by block. */
  const citeLater = new Map<number, CitationEvent[]>();

  function interaction(status: string): JsonObject {
    const out: JsonObject = {};
    if (id !== null) out['id'] = id;
    out['status'] = status;
    out['object'] = 'interaction';
    if (model !== null) out['model'] = model;
    return out;
  }

  function begin(): void {
    if (started) return;
    started = true;
    event(ctx, 'interaction.created', { interaction: interaction('in_progress') });
    if (id !== null) event(ctx, 'interaction.status_update', { interaction_id: id, status: 'in_progress' });
  }

  function open(key: string, kind: StepKind, block: number, step: JsonObject): Step {
    begin();
    const s: Step = { index: nextIndex++, kind, open: true, block, written: '', freeform: null };
    steps.set(key, s);
    byBlock.set(block, s);
    event(ctx, 'step.start', { index: s.index, step });
    return s;
  }

  function close(s: Step): void {
    if (!s.open) return;
    // citations that came before their text (Anthropic's): the step's text is complete now
    const waiting = s.kind === 'text' ? citeLater.get(s.block) : undefined;
    if (waiting !== undefined) {
      citeLater.delete(s.block);
      for (const ev of waiting) citation(ev);
    }
    s.open = false;
    event(ctx, 'step.stop', { index: s.index });
  }

  function closeFlowing(): void {
    if (flowing !== null) close(flowing);
    flowing = null;
  }

  function closeAll(): void {
    closeFlowing();
    for (const s of openCalls) close(s);
    openCalls.length = 0;
  }

  function delta(s: Step, d: JsonObject): void {
    event(ctx, 'step.delta', { index: s.index, delta: d });
  }

  /** The open step of a text, thought or audio block, opening one (and closing the other) when needed. */
  function flow(kind: 'text' | 'thought' | 'audio', block: number): Step {
    const key = `${kind}:${block}`;
    const current = steps.get(key);
    if (current !== undefined && current.open) return current;
    closeFlowing();
    const s = open(key, kind, block, { type: kind === 'thought' ? 'thought' : 'model_output' });
    flowing = s;
    if (kind === 'text') {
      let list = textSteps.get(block);
      if (list === undefined) textSteps.set(block, (list = []));
      list.push(s);
    }
    return s;
  }

  function callStep(callId: string, name: string, block: number): Step {
    const key = `call:${callId}`;
    const current = steps.get(key);
    if (current !== undefined) return current;
    closeFlowing();
    wroteCall = true;
    const s = open(key, 'call', block, { type: 'function_call', id: callId, name, arguments: {} });
    openCalls.push(s);
    return s;
  }

  function argsDelta(s: Step, text: string): void {
    s.written += text;
    delta(s, { type: 'arguments_delta', arguments: text });
  }

  /** A server-run tool step of the family, whole: `<tool>_call` (MCP: `mcp_server_tool_call` with the tool's name). */
  function hostedCall(callId: string, name: string, block: number, args: string, sig: string | null): void {
    const { args: value, wrapped } = argumentsObject(args);
    if (wrapped) ctx.lose('tool_input', `input of ${name} that is not a JSON object, written as {"input": …}`);
    const tool = SERVER_STEPS[name];
    const step: JsonObject = { type: `${tool ?? 'mcp_server_tool'}_call`, id: callId };
    if (tool === undefined) step['name'] = name;
    if (sig !== null) step['signature'] = sig;
    step['arguments'] = value;
    closeFlowing();
    hostedNames.set(callId, name);
    close(open(`hosted:${callId}`, 'other', block, step));
  }

  /** Its result step (`<tool>_result`); false for a result of a call not written here. */
  function hostedResult(ev: { id: string; name: string; index: number; result: Json; isError?: true }): boolean {
    const name = hostedNames.get(ev.id);
    if (name === undefined) return false;
    const tool = SERVER_STEPS[name];
    const step: JsonObject = { type: `${tool ?? 'mcp_server_tool'}_result`, call_id: ev.id };
    if (tool === undefined) step['name'] = name;
    step['result'] = ev.result;
    if (ev.isError === true) step['is_error'] = true;
    closeFlowing();
    close(open(`result:${ev.id}`, 'other', ev.index, step));
    return true;
  }

  function signature(block: number, sig: string): void {
    for (const h of hosted.values()) {
      if (h.block === block && h.signature === null) {
        h.signature = sig;
        return;
      }
    }
    const s = byBlock.get(block);
    if (s !== undefined && s.open) {
      delta(s, { type: 'thought_signature', signature: sig });
      return;
    }
    // a block with nothing but its signature: a thought step of its own
    closeFlowing();
    const t = open(`thought:${block}`, 'thought', block, { type: 'thought' });
    delta(t, { type: 'thought_signature', signature: sig });
    close(t);
  }

  function citation(ev: CitationEvent): void {
    const list = textSteps.get(ev.index) ?? [];
    if (list.length === 0) {
      let waiting = citeLater.get(ev.index);
      if (waiting === undefined) citeLater.set(ev.index, (waiting = []));
      waiting.push(ev);
      return;
    }
    if (sameFamily && isObject(ev.raw) && list[0]!.open) {
      // the family's own annotation, offsets already the step's
      delta(list[0]!, { type: 'text_annotation_delta', annotations: [ev.raw] });
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
    if (ev.citedText !== undefined) ctx.lose('citation', `the cited text of ${ev.url ?? ev.source ?? ev.title ?? 'a citation'}`);
    // offsets of the block (UTF-16) → UTF-8 bytes of the step holding the range
    let target = list[list.length - 1]!;
    if (ev.start !== undefined && ev.end !== undefined) {
      let base = 0;
      for (const s of list) {
        if (ev.start >= base && ev.end <= base + s.written.length) {
          target = s;
          a['start_index'] = utf8(s.written.slice(0, ev.start - base));
          a['end_index'] = utf8(s.written.slice(0, ev.end - base));
          break;
        }
        base += s.written.length;
      }
      if (a['end_index'] === undefined) ctx.lose('citation', `the offsets of ${ev.url ?? ev.source ?? ev.title ?? 'a citation'} (across steps)`);
    }
    if (target.open) {
      delta(target, { type: 'text_annotation_delta', annotations: [a] });
      return;
    }
    // its text step is over (a response-level citation): a step of its own, without the offsets of a text it does not hold
    if (a['end_index'] !== undefined) ctx.lose('citation', `the offsets of ${ev.url ?? ev.source ?? ev.title ?? 'a citation'} (its text step was closed)`);
    delete a['start_index'];
    delete a['end_index'];
    closeFlowing();
    const s = open(`cite:${nextIndex}`, 'other', ev.index, { type: 'model_output' });
    delta(s, { type: 'text_annotation_delta', annotations: [a] });
    close(s);
  }

  function usageOut(): JsonObject | null {
    if (usage === null) return null;
    if (sameFamily && isObject(usage.raw)) return usage.raw;
    if (usage.outputTokens === null && usage.reasoningTokens !== null) ctx.lose('usage', 'reasoning tokens without an output count');
    return interactionsUsageOf(usage);
  }

  function status(stopReason: Exclude<StopReason, 'error'>, providerReason: string | null): string {
    if (sameFamily && providerReason !== null && STATUS_READS[providerReason] === stopReason) return providerReason;
    if (stopReason === 'end' || stopReason === 'tool_use') {
      if (stopReason === 'tool_use' && !wroteCall) ctx.lose('stop_reason', 'tool_use without a client call written as completed');
      return wroteCall ? 'requires_action' : 'completed';
    }
    if (stopReason === 'refusal' || stopReason === 'other') {
      ctx.lose('stop_reason', `${stopReason}${providerReason === null ? '' : ` (${providerReason})`} written as completed`);
    }
    return STATUS[stopReason];
  }

  /** Citations whose text never came. */
  function uncited(): void {
    for (const list of citeLater.values()) for (const ev of list) ctx.lose('citation', `${ev.url ?? ev.source ?? ev.title ?? 'a citation'} (no text to cite)`);
    citeLater.clear();
  }

  function complete(stat: string): void {
    begin();
    closeAll();
    uncited();
    const i = interaction(stat);
    const u = usageOut();
    if (u !== null) i['usage'] = u;
    event(ctx, 'interaction.completed', { interaction: i });
    ctx.write('event: done\ndata: [DONE]\n\n');
    ended = true;
  }

  /**
   * The response failed: the family's own failure event as it came (a failed
   * interaction.completed keeps its usage), else the stream's `error` event
   * (no place for the usage: reported).
   */
  function fail(reason: Pick<ErrorEvent, 'code' | 'message'>): void {
    begin();
    closeAll();
    uncited();
    ended = true;
    const raw = failure?.raw;
    const type = isObject(raw) ? raw['event_type'] : undefined;
    if (sameFamily && isObject(raw) && (type === 'error' || type === 'interaction.completed')) {
      ctx.write(sseEvent(type, raw));
      if (type === 'interaction.completed') ctx.write('event: done\ndata: [DONE]\n\n');
      return;
    }
    errorEvent(ctx, failure ?? reason);
    if (usage !== null) ctx.lose('usage', 'the usage of a failed response (an error event has no place for it)');
  }

  function push(ev: UnifiedEvent): void {
    if (ended) return;
    if (ev.choice !== undefined && ev.choice !== 0) {
      ctx.lose('choice', `events of choice ${ev.choice} (an interaction has one output)`);
      return;
    }
    switch (ev.type) {
      case 'start':
        id = ev.id === '' ? null : ev.id;
        model = ev.model;
        sameFamily = ev.dialect !== undefined && (FAMILY as readonly string[]).includes(ev.dialect);
        begin();
        return;
      case 'text_delta': {
        const s = flow('text', ev.index);
        s.written += ev.text;
        delta(s, { type: 'text', text: ev.text });
        return;
      }
      case 'reasoning_delta':
        delta(flow('thought', ev.index), { type: 'thought_summary', content: { type: 'text', text: ev.text } });
        return;
      case 'signature':
        if (!sameFamily || ev.kind !== 'thought_signature') ctx.lose('signature', `a ${ev.kind} from another provider family`);
        else signature(ev.index, ev.signature);
        return;
      case 'tool_call_start':
        if (ev.providerExecuted !== true) callStep(ev.id, ev.name, ev.index);
        else if (sameFamily) hosted.set(ev.id, { block: ev.index, signature: null });
        else ctx.lose('provider_tool_call', `${ev.name} (run by the source provider)`);
        return;
      case 'tool_call_delta': {
        if (ev.providerExecuted === true || ev.argumentsDelta.length === 0) return;
        const s = callStep(ev.id, '', ev.index);
        // arguments_delta must build a JSON object: free-form input (it does not start as one) waits for its done
        if (s.freeform === null && s.written === '' && !/^\s*\{/.test(ev.argumentsDelta)) s.freeform = '';
        if (s.freeform !== null) s.freeform += ev.argumentsDelta;
        else argsDelta(s, ev.argumentsDelta);
        return;
      }
      case 'tool_call_done': {
        if (ev.providerExecuted === true) {
          const h = hosted.get(ev.id);
          if (h !== undefined) {
            hosted.delete(ev.id);
            hostedCall(ev.id, ev.name, ev.index, ev.arguments, h.signature);
          }
          return;
        }
        const s = callStep(ev.id, ev.name, ev.index);
        if (s.freeform !== null || (s.written === '' && !/^\s*\{/.test(ev.arguments))) {
          const { args, wrapped } = argumentsObject(ev.arguments);
          if (wrapped) ctx.lose('tool_input', `input of ${ev.name} that is not a JSON object, written as {"input": …}`);
          if (ev.arguments !== '') argsDelta(s, wrapped ? JSON.stringify(args) : ev.arguments);
        } else if (s.written === '') argsDelta(s, ev.arguments);
        else if (ev.arguments.startsWith(s.written)) {
          // the authoritative arguments: what the deltas did not already say
          const rest = ev.arguments.slice(s.written.length);
          if (rest.length > 0) argsDelta(s, rest);
        }
        close(s);
        return;
      }
      case 'tool_result':
        if (!sameFamily || !hostedResult(ev)) ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name}`);
        return;
      case 'citation':
        citation(ev);
        return;
      case 'file': {
        if (ev.partial === true) return;
        if (ev.mimeType !== null && !ev.mimeType.startsWith('image/')) {
          ctx.lose('file', `a ${ev.mimeType} of ${ev.data.length} base64 characters (image deltas only)`);
          return;
        }
        closeFlowing();
        const s = open(`file:${nextIndex}`, 'other', ev.index, { type: 'model_output' });
        const d: JsonObject = { type: 'image', data: ev.data };
        if (ev.mimeType !== null) d['mime_type'] = ev.mimeType;
        delta(s, d);
        close(s);
        return;
      }
      case 'audio_delta': {
        const d: JsonObject = { type: 'audio', data: ev.data };
        if (ev.mimeType !== null) d['mime_type'] = ev.mimeType;
        delta(flow('audio', ev.index), d);
        return;
      }
      case 'usage':
        usage = ev;
        return;
      case 'error':
        // held for the failed interaction.completed, which carries the usage too
        if (ev.terminal) failure ??= ev;
        else ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done':
        for (const c of ev.choices ?? []) if (c.choice !== 0) ctx.lose('choice', `the stop reason of choice ${c.choice}`);
        if (ev.stopReason === 'error') {
          fail({ code: 'api_error', message: `the response ended with an error${ev.providerReason === null ? '' : ` (${ev.providerReason})`}` });
        } else complete(status(ev.stopReason, ev.providerReason));
        return;
      case 'raw':
      case 'session':
      case 'steer':
      case 'tool_call_cancel':
      case 'input_transcript':
      case 'segment':
      case 'notice':
        loseNotice(ev, ctx);
        return;
      default:
        assertNever(ev);
    }
  }

  return {
    push,
    abort() {
      if (!ended) fail({ code: 'incomplete_stream', message: 'the source stream ended before the response was done' });
    },
  };
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
