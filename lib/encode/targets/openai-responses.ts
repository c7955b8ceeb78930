/**
 * Unified events → OpenAI Responses SSE (`event: <type>` + `data: {…}`, every
 * payload with its `type` and a dense `sequence_number` from 0; no `[DONE]`).
 *
 * - Skeleton: response.created and response.in_progress (the response object
 *   with an empty `output`), output items added → their events → done, and a
 *   terminal response.completed / response.incomplete / response.failed held
 *   until the unified `done` (the usage is final then), whose response holds
 *   every item written, complete, and the usage (`finalResponse()` of the
 *   SDK returns that object).
 * - Items: text → a `message` item (output_text parts; refusal text → a
 *   `refusal` part), one content part per source block; reasoning → a
 *   `reasoning` item with summary_text parts; client calls → `function_call`
 *   (JSON arguments) or `custom_tool_call` (free-form input: text that does
 *   not begin as a JSON object), whose output_item.added waits for the first
 *   argument text to tell which. A message or reasoning item is done when
 *   another item opens; a call item stays open until its `tool_call_done`, so
 *   parallel calls whose deltas interleave keep their output indices.
 * - `encrypted_content` (a `signature` of kind encrypted_content) is carried
 *   only from the Responses family (openai-responses, xai-responses): it
 *   completes its reasoning item. Other signatures are reported lost.
 * - Citations → annotations (response.output_text.annotation.added) on the
 *   content part of their text block: the family's own annotation as it came;
 *   another family's citation with a URL → a `url_citation` with the offsets
 *   it has. One that came before its block's text (Anthropic cites a block
 *   at its start) spans that text, added when the part is done; one with no
 *   offsets after the text began (Perplexity's and xAI's source lists) has no
 *   start_index / end_index (the SDK's type wants them, its accumulator does
 *   not check; inventing a range would be worse). A citation of a part
 *   already done is in that part's annotations in the terminal response (the
 *   reader cites it from there). Citations with no URL (documents, file
 *   stores of other families) are reported lost.
 * - Stop reasons: end / tool_use → completed (the reader says tool_use when a
 *   client call is in the output: a tool_use with none cannot be said, and is
 *   reported), max_tokens → incomplete `max_output_tokens`, refusal →
 *   incomplete `content_filter`, error → failed. `other`: the family's own
 *   incomplete reason as it came; otherwise completed, reported.
 * - Usage: the family's own usage object as it came; otherwise
 *   input/output/total tokens with cached and reasoning details, unknown
 *   counts left out, and no `usage` at all when nothing was reported (the
 *   Response object allows that).
 * - Hosted (provider-executed) calls from the Responses family are written
 *   as the item the source wrote at its output_item.done (the `raw` event
 *   after the call's unified events), at this wire's output index, with the
 *   items holding their results apart (shell_call_output, tool_search_output,
 *   program_output): reading them gives the same calls, results and images
 *   (hosted items the source ran in parallel, as xAI does, come in the order
 *   they were done). xAI's server-side custom_tool_call items (x_search
 *   sub-tools) are not: on this wire they would be client calls. Hosted calls
 *   of other families cannot be rebuilt from unified events (each tool's item
 *   has its own input and output fields). Those calls, their results and
 *   files are reported lost, as are audio and choices k > 0.
 * - Errors: a terminal error closes what is open (incomplete) and is an
 *   `error` event; the response then ends with response.failed holding that
 *   error and the usage so far (at its `done`, or when the input ends: a
 *   response cut short gets an `incomplete_stream` error). A `done` of reason
 *   error with no error before it gets response.failed with
 *   `{code: 'server_error'}`: the wire has no failure without an error, so a
 *   reader reports one.
 * - Converted, not lost: item ids are this wire's own (`msg_`/`rs_`/`fc_`/
 *   `ctc_` + response id + output index; hosted items keep theirs), output
 *   indices are dense in the order items are written, `created_at` is the
 *   encoding time, reasoning text of any kind (Responses reasoning_text
 *   included) is summary_text, audio transcripts are output_text, and the
 *   source's progress events (…searching, …in_progress) are not written
 *   (`raw`).
 */
import { assertNever, type CitationEvent, type Json, type JsonObject, type StopReason, type UnifiedEvent, type UsageEvent } from '../../events.js';
import { loseNotice, loseOtherChoices } from '../notices.js';
import type { KeptText } from '../byte-out.js';
import { defineTarget, jsonChars, jsonString, piece, sseEvent, type Piece, type TargetContext, type TargetResponse } from '../target.js';

const FAMILY = ['openai-responses', 'xai-responses'] as const;
const SURROGATE = /[\ud800-\udfff]/;

interface Part {
  kind: 'text' | 'refusal';
  /** Unified block index and content index of the text it holds. */
  block: number;
  content: number;
  /**
   * The text as JSON string contents (without the quotes): the deltas' JSON as written, so the four
   * events that repeat the whole text (text done, part done, item done, the terminal response) do
   * not escape it again (ctx.keep: in byte mode, bytes copied rather than text encoded again).
   */
  json: KeptText;
  annotations: JsonObject[];
  /** url_citations that came before the part's text, without offsets: added when the part is done, spanning its text. */
  held: JsonObject[];
  open: boolean;
  /** The fields of its output_text.delta events between sequence_number and the delta's JSON characters. */
  deltaHead?: Piece;
}

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

interface MessageItem {
  kind: 'message';
  id: string;
  /** `,"item_id":…,"output_index":…`: the head of its events' fields. */
  where: string;
  outputIndex: number;
  open: boolean;
  status: ItemStatus;
  parts: Part[];
}

interface ReasoningItem {
  kind: 'reasoning';
  id: string;
  where: string;
  outputIndex: number;
  open: boolean;
  status: ItemStatus;
  /** Unified block index. */
  block: number;
  /** Each summary part's text kept as its JSON (written as it came, copied into the events that repeat it). */
  summary: { key: number; json: KeptText; open: boolean; deltaHead: Piece }[];
  encrypted: string | null;
}

interface CallItem {
  kind: 'function_call' | 'custom_tool_call';
  id: string;
  where: string;
  outputIndex: number;
  open: boolean;
  status: ItemStatus;
  callId: string;
  name: string;
  /** Arguments (function_call) or input (custom_tool_call) text written so far, or authoritative at done. */
  text: string;
  /**
   * The JSON characters of the text's deltas as written (null once they are not the text's: an
   * authoritative text that differs, or a delta holding a surrogate, which a delta escapes alone when
   * it is lone there but the whole text may hold as a pair): the done event's JSON without escaping
   * the whole text again.
   */
  chars: string | null;
  /** The text's JSON once the item is done (written again in the item and the terminal response). */
  textJson: string | null;
}

/** A hosted call's output item (or the item holding its result), as the source wrote it at its output_item.done. */
interface HostedItem {
  kind: 'hosted';
  outputIndex: number;
  open: boolean;
  json: JsonObject;
}

type Item = MessageItem | ReasoningItem | CallItem | HostedItem;

/** A hosted call seen (its start), waiting for its item in a raw output_item.done. */
interface PendingHosted {
  name: string;
  /** Its tool_result and files came (carried with the item, else reported lost with the call). */
  results: number;
  files: number;
}

/** Output items that hold a hosted call's result apart from the call (see the reader's onResultItem). */
const RESULT_ITEMS = new Set(['shell_call_output', 'tool_search_output', 'program_output']);
/** Item types the target writes itself from unified events. */
const OWN_ITEMS = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call']);

/** A client call whose output_item.added waits for its first argument text (function or custom?). */
interface PendingCall {
  name: string;
  /** Whitespace-only argument text so far. */
  text: string;
}

/** partJson's JSON text, the text from its JSON as written. */
function partText(part: Part): string {
  return part.kind === 'refusal'
    ? `{"type":"refusal","refusal":"${part.json.ref()}"}`
    : `{"type":"output_text","annotations":${part.annotations.length === 0 ? '[]' : JSON.stringify(part.annotations)},"logprobs":[],"text":"${part.json.ref()}"}`;
}

/**
 * f of each element, joined by commas. Not `list.map(f).join(',')`: the array map() makes for an
 * empty list holds small integers, where the code optimized for it expects strings, and an item
 * with no part, a reasoning item with no summary or a response with no output deoptimized it.
 */
function commaJoined<T>(list: readonly T[], f: (x: T) => string): string {
  let s = '';
  for (let i = 0; i < list.length; i++) s += i === 0 ? f(list[i]!) : ',' + f(list[i]!);
  return s;
}

function summaryText(s: ReasoningItem['summary'][number]): string {
  return `{"type":"summary_text","text":"${s.json.ref()}"}`;
}

/**
 * The JSON text of an item, as output_item.added / done and the terminal response hold it (written
 * as text, not built as an object and stringified: a log of short responses writes several a
 * response; a message's parts and a reasoning item's summaries from their JSON as written).
 */
function itemText(item: Item): string {
  switch (item.kind) {
    case 'hosted':
      return JSON.stringify(item.json);
    case 'message':
      return `{"id":${JSON.stringify(item.id)},"type":"message","status":"${item.status}","content":[${commaJoined(item.parts, partText)}],"role":"assistant"}`;
    case 'reasoning': {
      const summary = commaJoined(item.summary, summaryText);
      const encrypted = item.encrypted === null ? '' : `,"encrypted_content":${JSON.stringify(item.encrypted)}`;
      return `{"id":${JSON.stringify(item.id)},"type":"reasoning","summary":[${summary}]${encrypted}}`;
    }
    case 'function_call':
      return `{"id":${JSON.stringify(item.id)},"type":"function_call","status":"${item.status}","arguments":${item.textJson ?? jsonString(item.text)},"call_id":${JSON.stringify(item.callId)},"name":${JSON.stringify(item.name)}}`;
    case 'custom_tool_call':
      return `{"id":${JSON.stringify(item.id)},"type":"custom_tool_call","status":"${item.status}","call_id":${JSON.stringify(item.callId)},"name":${JSON.stringify(item.name)},"input":${item.textJson ?? jsonString(item.text)}}`;
    default:
      return assertNever(item);
  }
}

/** The first fields of an item's events (after sequence_number), as JSON text. */
function whereOf(itemId: string, outputIndex: number): string {
  return `,"item_id":${JSON.stringify(itemId)},"output_index":${outputIndex}`;
}

/** Each event type's head, up to its sequence_number's value. */
const HEADS = new Map<string, Piece>();
function headOf(type: string): Piece {
  let head = HEADS.get(type);
  if (head === undefined) HEADS.set(type, (head = piece(`event: ${type}\ndata: {"type":"${type}","sequence_number":`)));
  return head;
}
const TEXT_DELTA = headOf('response.output_text.delta');
const TEXT_DELTA_END = piece('","logprobs":[]}\n\n');
const SUMMARY_DELTA = headOf('response.reasoning_summary_text.delta');
const SUMMARY_DELTA_END = piece('"}\n\n');

/** An empty part as content_part.added holds it. */
const EMPTY_PART = { text: '{"type":"output_text","annotations":[],"logprobs":[],"text":""}', refusal: '{"type":"refusal","refusal":""}' } as const;

/** The usage object: the family's own as it came, else the unified counts (unknown ones left out). */
function responsesUsage(u: UsageEvent, sameFamily: boolean): JsonObject {
  const raw = u.raw;
  if (sameFamily && typeof raw === 'object' && raw !== null && !Array.isArray(raw)) return raw;
  const out: JsonObject = {};
  if (u.inputTokens !== null) out['input_tokens'] = u.inputTokens;
  if (u.cachedInputTokens !== null) out['input_tokens_details'] = { cached_tokens: u.cachedInputTokens };
  if (u.outputTokens !== null) out['output_tokens'] = u.outputTokens;
  if (u.reasoningTokens !== null) out['output_tokens_details'] = { reasoning_tokens: u.reasoningTokens };
  const total = u.totalTokens ?? (u.inputTokens !== null && u.outputTokens !== null ? u.inputTokens + u.outputTokens : null);
  if (total !== null) out['total_tokens'] = total;
  return out;
}

/** A citation as a Responses annotation: the family's own object, else a url_citation (undefined without a URL). */
function annotationOf(ev: CitationEvent, sameFamily: boolean): JsonObject | undefined {
  const raw = ev.raw;
  if (sameFamily && typeof raw === 'object' && raw !== null && !Array.isArray(raw) && typeof raw['type'] === 'string') return raw;
  if (ev.url === undefined) return undefined;
  const out: JsonObject = { type: 'url_citation', url: ev.url, title: ev.title ?? '' };
  if (ev.start !== undefined && ev.end !== undefined) {
    out['start_index'] = ev.start;
    out['end_index'] = ev.end;
  }
  return out;
}

/**
 * One response being written. A class, not a closure per step: a log of short responses makes one
 * a response, and a closure each of its ~30 steps per response costs an allocation each (and, where
 * the code runs through a transform that keeps function names, as tsx does, a defineProperty each).
 */
class ResponsesResponse implements TargetResponse {
  private id = 'resp_wirefold';
  private model = 'unknown';
  private sameFamily = false;
  private readonly created = Math.floor(Date.now() / 1000);
  private seq = 0;
  private started = false;
  private ended = false;
  private usage: UsageEvent | null = null;
  /** The terminal error written (an `error` event), for response.failed. */
  private failure: { code: string; message: string } | null = null;
  private readonly output: Item[] = [];
  /** The open message or reasoning item (at most one). */
  private flowing: MessageItem | ReasoningItem | null = null;
  /** Client call items by call id (open or done), and calls not yet added. */
  private readonly calls = new Map<string, CallItem>();
  private readonly pending = new Map<string, PendingCall>();
  /** Unified text block index → the latest content part holding its text. */
  private readonly partsByBlock = new Map<number, { item: MessageItem; part: Part }>();
  /** Citations of a text block whose text has not come yet (Anthropic cites a block at its start). */
  private readonly early = new Map<number, CitationEvent[]>();
  private clientCalls = 0;
  /** Hosted calls are carried as their own items: the source is the Responses family (its raw output_item.done events). */
  private carryHosted = false;
  private readonly hosted = new Map<string, PendingHosted>();
  /** Hosted calls written: a result in an item of its own (shell_call_output…) follows theirs. */
  private readonly carried = new Set<string>();

  /** (a part's text is read only for citation offsets, decoded from its kept JSON then) */
  readonly rawDeltas = 'all';

  constructor(private readonly ctx: TargetContext) {}

  private emit(type: string, fields: JsonObject): void {
    this.ctx.write(sseEvent(type, { type, sequence_number: this.seq++, ...fields }));
  }

  /** emit() with the fields after sequence_number given as JSON text (`,"key":…`): the same bytes. */
  private emitText(type: string, fields: string): void {
    this.ctx.writeAfter(headOf(type), this.seq++, `${fields}}\n\n`);
  }

  /** The response object's JSON text (`error`, `incomplete_details` and `usage` as JSON text; usage null: no key). */
  private responseText(status: string, error: string, incomplete: string, items: string, usageJson: string | null): string {
    const tail = usageJson === null ? '' : `,"usage":${usageJson}`;
    return `{"id":${JSON.stringify(this.id)},"object":"response","created_at":${this.created},"status":"${status}","error":${error},"incomplete_details":${incomplete},"model":${JSON.stringify(this.model)},"output":[${items}]${tail}}`;
  }

  private begin(): void {
    if (this.started) return;
    this.started = true;
    const response = `,"response":${this.responseText('in_progress', 'null', 'null', '', 'null')}`;
    this.emitText('response.created', response);
    this.emitText('response.in_progress', response);
  }

  private addItem(item: Item): void {
    this.begin();
    this.output.push(item);
    this.emitText('response.output_item.added', `,"output_index":${item.outputIndex},"item":${itemText(item)}`);
  }

  private nextIndex(): number {
    return this.output.length;
  }

  // --- message items -------------------------------------------------------

  private closePart(item: MessageItem, part: Part): void {
    if (!part.open) return;
    part.open = false;
    const where = `${item.where},"content_index":${item.parts.indexOf(part)}`;
    if (part.kind === 'refusal') this.emitText('response.refusal.done', `${where},"refusal":"${part.json.ref()}"`);
    else {
      for (const h of part.held) this.annotate(item, part, { ...h, start_index: 0, end_index: part.json.text().length });
      part.held.length = 0;
      this.emitText('response.output_text.done', `${where},"text":"${part.json.ref()}","logprobs":[]`);
    }
    this.emitText('response.content_part.done', `${where},"part":${partText(part)}`);
  }

  private annotate(item: MessageItem, part: Part, annotation: JsonObject): void {
    const annotationIndex = part.annotations.length;
    part.annotations.push(annotation);
    this.emit('response.output_text.annotation.added', {
      item_id: item.id,
      output_index: item.outputIndex,
      content_index: item.parts.indexOf(part),
      annotation_index: annotationIndex,
      annotation,
    });
  }

  private closeItem(item: Item, status: ItemStatus): void {
    if (!item.open) return;
    if (item.kind === 'message') for (const p of item.parts) this.closePart(item, p);
    else if (item.kind === 'hosted') {
      // written whole: added and done at once
    } else if (item.kind === 'reasoning') {
      item.summary.forEach((s, i) => this.closeSummary(item, s, i));
    } else {
      const json = (item.textJson = item.chars === null ? jsonString(item.text) : `"${item.chars}"`);
      if (item.kind === 'function_call') this.emitText('response.function_call_arguments.done', `${item.where},"name":${JSON.stringify(item.name)},"arguments":${json}`);
      else this.emitText('response.custom_tool_call_input.done', `${item.where},"input":${json}`);
    }
    item.open = false;
    if (item.kind !== 'hosted') item.status = status;
    this.emitText('response.output_item.done', `,"output_index":${item.outputIndex},"item":${itemText(item)}`);
  }

  private closeFlowing(status: ItemStatus = 'completed'): void {
    if (this.flowing !== null) this.closeItem(this.flowing, status);
    this.flowing = null;
  }

  private text(block: number, contentIndex: number | undefined, delta: string, refusal: boolean): void {
    const kind = refusal ? 'refusal' : 'text';
    const content = contentIndex ?? 0;
    let item = this.flowing?.kind === 'message' ? this.flowing : null;
    if (item === null) {
      this.closeFlowing();
      const itemId = `msg_${this.id}_${this.nextIndex()}`;
      item = { kind: 'message', id: itemId, where: whereOf(itemId, this.nextIndex()), outputIndex: this.nextIndex(), open: true, status: 'in_progress', parts: [] };
      this.addItem(item);
      this.flowing = item;
    }
    let part = item.parts[item.parts.length - 1];
    if (part === undefined || !part.open || part.block !== block || part.content !== content || part.kind !== kind) {
      if (part !== undefined) this.closePart(item, part);
      part = { kind, block, content, json: this.ctx.keep(), annotations: [], held: [], open: true };
      item.parts.push(part);
      this.emitText('response.content_part.added', `${item.where},"content_index":${item.parts.length - 1},"part":${EMPTY_PART[kind]}`);
      if (kind === 'text') {
        this.partsByBlock.set(block, { item, part });
        for (const c of this.early.get(block) ?? []) this.cite(c);
        this.early.delete(block);
      }
    }
    const json = part.json.add(delta);
    if (refusal) {
      this.emit('response.refusal.delta', { item_id: item.id, output_index: item.outputIndex, content_index: item.parts.length - 1, delta });
      return;
    }
    // the bulk of every stream, written around the delta's JSON alone: the same bytes as emit()
    part.deltaHead ??= piece(`${item.where},"content_index":${item.parts.length - 1},"delta":"`);
    this.ctx.writeDelta(TEXT_DELTA, this.seq++, part.deltaHead, delta, TEXT_DELTA_END, json);
  }

  private cite(ev: CitationEvent): void {
    const at = this.partsByBlock.get(ev.index);
    const annotation = annotationOf(ev, this.sameFamily);
    const what = ev.url ?? ev.source ?? ev.title ?? 'a citation';
    if (annotation === undefined) {
      this.ctx.lose('citation', `${what} (no URL: a url_citation needs one)`);
      return;
    }
    if (at === undefined) {
      // held until the block's text comes (lost if it never does)
      const list = this.early.get(ev.index) ?? [];
      list.push(ev);
      this.early.set(ev.index, list);
      return;
    }
    const ranged = typeof annotation['start_index'] === 'number' || annotation['type'] !== 'url_citation';
    if (!ranged && at.part.open && at.part.json.empty()) {
      // cited before its text (Anthropic): the block's text is the cited range, known when the part is done
      at.part.held.push(annotation);
    } else if (at.part.open) this.annotate(at.item, at.part, annotation);
    // the part is done: the annotation is in the terminal response's output (the reader cites it from there)
    else at.part.annotations.push(annotation);
  }

  // --- reasoning items ------------------------------------------------------

  private reasoningItem(block: number): ReasoningItem {
    if (this.flowing?.kind === 'reasoning' && this.flowing.block === block) return this.flowing;
    this.closeFlowing();
    const itemId = `rs_${this.id}_${this.nextIndex()}`;
    const item: ReasoningItem = {
      kind: 'reasoning',
      id: itemId,
      where: whereOf(itemId, this.nextIndex()),
      outputIndex: this.nextIndex(),
      open: true,
      status: 'in_progress',
      block,
      summary: [],
      encrypted: null,
    };
    this.addItem(item);
    this.flowing = item;
    return item;
  }

  private reasoning(block: number, contentIndex: number | undefined, delta: string): void {
    const item = this.reasoningItem(block);
    const key = contentIndex ?? 0;
    let part = item.summary[item.summary.length - 1];
    if (part === undefined || !part.open || part.key !== key) {
      if (part !== undefined) this.closeSummary(item, part, item.summary.length - 1);
      const where = `${item.where},"summary_index":${item.summary.length}`;
      part = { key, json: this.ctx.keep(), open: true, deltaHead: piece(`${where},"delta":"`) };
      item.summary.push(part);
      this.emitText('response.reasoning_summary_part.added', `${where},"part":{"type":"summary_text","text":""}`);
    }
    const json = part.json.add(delta);
    // written around the delta's JSON alone: the same bytes as emit()
    this.ctx.writeDelta(SUMMARY_DELTA, this.seq++, part.deltaHead, delta, SUMMARY_DELTA_END, json);
  }

  /** A summary part's done events, its text from its JSON as written. */
  private closeSummary(item: ReasoningItem, part: ReasoningItem['summary'][number], index: number): void {
    if (!part.open) return;
    part.open = false;
    const where = `${item.where},"summary_index":${index}`;
    this.emitText('response.reasoning_summary_text.done', `${where},"text":"${part.json.ref()}"`);
    this.emitText('response.reasoning_summary_part.done', `${where},"part":{"type":"summary_text","text":"${part.json.ref()}"}`);
  }

  // --- call items -----------------------------------------------------------

  /** Argument text of a call not added yet: the item is added once the text (not only whitespace) says which kind it is. */
  private pendingText(callId: string, argText: string): void {
    const p = this.pending.get(callId) ?? { name: '', text: '' };
    this.pending.set(callId, p);
    p.text += argText;
    if (p.text.trim() !== '') this.openCall(callId, p, p.text);
  }

  /** Adds the call's item, its kind told by `args` (empty: a function call), and writes what streamed so far. */
  private openCall(callId: string, p: PendingCall, args: string): CallItem {
    this.pending.delete(callId);
    this.closeFlowing();
    const kind = args.trim() === '' || /^\s*\{/.test(args) ? 'function_call' : 'custom_tool_call';
    const prefix = kind === 'function_call' ? 'fc' : 'ctc';
    const itemId = `${prefix}_${this.id}_${this.nextIndex()}`;
    const where = whereOf(itemId, this.nextIndex());
    const item: CallItem = { kind, id: itemId, where, outputIndex: this.nextIndex(), open: true, status: 'in_progress', callId, name: p.name, text: '', chars: '', textJson: null };
    this.calls.set(callId, item);
    this.clientCalls++;
    this.addItem(item);
    if (p.text !== '') this.argsDelta(item, p.text);
    return item;
  }

  private argsDelta(item: CallItem, delta: string): void {
    item.text += delta;
    const chars = jsonChars(delta);
    if (item.chars !== null) item.chars = SURROGATE.test(delta) ? null : item.chars + chars;
    const type = item.kind === 'function_call' ? 'response.function_call_arguments.delta' : 'response.custom_tool_call_input.delta';
    this.emitText(type, `${item.where},"delta":"${chars}"`);
  }

  private callDone(callId: string, name: string, args: string): void {
    let item = this.calls.get(callId);
    if (item === undefined) {
      const p = this.pending.get(callId) ?? { name, text: '' };
      if (p.name === '') p.name = name;
      // what streamed (whitespace only) is written first when the authoritative text begins with it
      if (!args.startsWith(p.text)) p.text = '';
      item = this.openCall(callId, p, args);
    }
    if (!args.startsWith(item.text)) item.chars = null;
    else if (args.length > item.text.length) this.argsDelta(item, args.slice(item.text.length));
    if (item.name === '') item.name = name;
    // the done event and the item hold the authoritative text
    item.text = args;
    this.closeItem(item, 'completed');
  }

  // --- hosted items (from OpenAI's Responses API) --------------------------

  /**
   * A raw output_item.done holding a hosted call seen before (by call_id, else
   * item id) or an item holding such a call's result: written as it came
   * (added and done), at this wire's next output index. True when written.
   */
  private hostedItem(payload: Json): boolean {
    const p = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload : undefined;
    const item = p?.['item'];
    if (p?.['type'] !== 'response.output_item.done' || item === null || typeof item !== 'object' || Array.isArray(item)) return false;
    const type = item['type'];
    if (typeof type !== 'string' || OWN_ITEMS.has(type)) return false;
    const callId = typeof item['call_id'] === 'string' && item['call_id'] !== '' ? item['call_id'] : item['id'];
    const key = typeof callId === 'string' ? callId : '';
    if (this.hosted.has(key)) {
      this.hosted.delete(key);
      this.carried.add(key);
    } else if (!RESULT_ITEMS.has(type)) return false;
    this.closeFlowing();
    const written: HostedItem = { kind: 'hosted', outputIndex: this.nextIndex(), open: true, json: item };
    this.addItem(written);
    this.closeItem(written, 'completed');
    return true;
  }

  /** Hosted calls whose item never came: reported lost with their results and files. */
  private loseHosted(): void {
    for (const call of this.hosted.values()) {
      this.ctx.lose('provider_tool_call', `${call.name} (run by the source provider; its item never came)`);
      for (let i = 0; i < call.results; i++) this.ctx.lose('tool_result', `the result of ${call.name}`);
      for (let i = 0; i < call.files; i++) this.ctx.lose('file', `a file of ${call.name}`);
    }
    this.hosted.clear();
  }

  // --- errors and the terminal event ----------------------------------------

  /** A terminal error: what is open is closed (incomplete) first, nothing follows but response.failed. */
  private writeError(code: string, message: string): void {
    this.begin();
    this.closeAll('incomplete');
    this.failure = { code, message };
    this.emit('error', { code, message, param: null });
  }

  /** Calls never added (only whitespace streamed) or left open, then the flowing item. */
  private closeAll(status: ItemStatus): void {
    this.loseHosted();
    for (const [block, list] of this.early) for (const c of list) this.ctx.lose('citation', `${c.url ?? 'a citation'} (block ${block} has no text)`);
    this.early.clear();
    this.closeFlowing(status);
    for (const [callId, p] of [...this.pending]) this.openCall(callId, p, p.text);
    for (const item of this.output) if (item.open) this.closeItem(item, status);
  }

  /** The terminal event: the response with every item (each message's text again, from its JSON as written). */
  private terminal(type: string, status: string, error: JsonObject | null, incomplete: string | null): void {
    const errorJson = error === null ? 'null' : JSON.stringify(error);
    const incompleteJson = incomplete === null ? 'null' : `{"reason":${JSON.stringify(incomplete)}}`;
    const usageJson = this.usage === null ? null : JSON.stringify(responsesUsage(this.usage, this.sameFamily));
    this.emitText(type, `,"response":${this.responseText(status, errorJson, incompleteJson, commaJoined(this.output, itemText), usageJson)}`);
    this.ended = true;
  }

  private fail(detail: string): void {
    this.begin();
    this.closeAll('incomplete');
    const error = this.failure ?? { code: 'server_error', message: detail };
    this.terminal('response.failed', 'failed', error, null);
  }

  private finish(stopReason: StopReason, providerReason: string | null): void {
    this.begin();
    if (stopReason === 'error') {
      this.fail(`the response ended with an error${providerReason === null ? '' : ` (${providerReason})`}`);
      return;
    }
    this.closeAll(stopReason === 'end' || stopReason === 'tool_use' ? 'completed' : 'incomplete');
    switch (stopReason) {
      case 'end':
        this.terminal('response.completed', 'completed', null, null);
        return;
      case 'tool_use':
        if (this.clientCalls === 0) this.ctx.lose('stop_reason', `tool_use without a client call written as completed (${providerReason ?? 'no reason'})`);
        this.terminal('response.completed', 'completed', null, null);
        return;
      case 'max_tokens':
        this.terminal('response.incomplete', 'incomplete', null, 'max_output_tokens');
        return;
      case 'refusal':
        this.terminal('response.incomplete', 'incomplete', null, 'content_filter');
        return;
      case 'other':
        if (this.sameFamily && providerReason !== null && providerReason !== 'completed' && providerReason !== 'cancelled') {
          this.terminal('response.incomplete', 'incomplete', null, providerReason);
          return;
        }
        this.ctx.lose('stop_reason', `other${providerReason === null ? '' : ` (${providerReason})`} written as completed`);
        this.terminal('response.completed', 'completed', null, null);
        return;
      default:
        assertNever(stopReason);
    }
  }

  push(ev: UnifiedEvent): void {
    if (this.ended) {
      if (ev.type !== 'done') this.ctx.lose('raw', `${ev.type} after the terminal event`);
      return;
    }
    if (ev.choice !== undefined && ev.choice !== 0 && ev.type !== 'done') {
      this.ctx.lose('choice', `events of choice ${ev.choice} (the Responses wire has one output)`);
      return;
    }
    switch (ev.type) {
      case 'start':
        if (ev.id !== null && ev.id !== '') this.id = ev.id;
        if (ev.model !== null) this.model = ev.model;
        this.sameFamily = ev.dialect !== undefined && (FAMILY as readonly string[]).includes(ev.dialect);
        this.carryHosted = this.sameFamily;
        this.begin();
        return;
      case 'text_delta':
        this.text(ev.index, ev.contentIndex, ev.text, ev.refusal === true);
        return;
      case 'reasoning_delta':
        this.reasoning(ev.index, ev.contentIndex, ev.text);
        return;
      case 'signature':
        if (!this.sameFamily || ev.kind !== 'encrypted_content') this.ctx.lose('signature', `a ${ev.kind}${this.sameFamily ? '' : ' from another provider family'}`);
        else {
          // the encrypted content completes its reasoning item (one with no summary when none streamed)
          const item = this.reasoningItem(ev.index);
          item.encrypted = ev.signature;
          this.closeFlowing();
        }
        return;
      case 'tool_call_start':
        if (ev.providerExecuted === true) {
          if (this.carryHosted) this.hosted.set(ev.id, { name: ev.name, results: 0, files: 0 });
          else this.ctx.lose('provider_tool_call', `${ev.name} (run by the source provider)`);
        } else if (!this.calls.has(ev.id)) {
          const p = this.pending.get(ev.id);
          if (p === undefined) this.pending.set(ev.id, { name: ev.name, text: '' });
          else if (p.name === '') p.name = ev.name;
        }
        return;
      case 'tool_call_delta': {
        if (ev.providerExecuted === true || ev.argumentsDelta.length === 0) return;
        const item = this.calls.get(ev.id);
        if (item === undefined) this.pendingText(ev.id, ev.argumentsDelta);
        else if (item.open) this.argsDelta(item, ev.argumentsDelta);
        return;
      }
      case 'tool_call_done':
        if (ev.providerExecuted === true) return; // counted at its start
        if (this.calls.get(ev.id)?.open === false) return;
        this.callDone(ev.id, ev.name, ev.arguments);
        return;
      case 'tool_result': {
        const call = this.hosted.get(ev.id);
        if (call !== undefined) call.results++;
        else if (!this.carried.has(ev.id)) this.ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name}`);
        return;
      }
      case 'citation':
        this.cite(ev);
        return;
      case 'file': {
        if (ev.partial === true) return;
        const call = ev.id === undefined ? undefined : this.hosted.get(ev.id);
        if (call !== undefined) call.files++;
        else this.ctx.lose('file', `a ${ev.mimeType ?? 'file'} of ${ev.data.length} base64 characters`);
        return;
      }
      case 'audio_delta':
        this.ctx.lose('audio', `${ev.mimeType ?? 'audio'} deltas`);
        return;
      case 'usage':
        this.usage = ev;
        return;
      case 'error':
        if (ev.terminal) {
          if (this.failure === null) this.writeError(ev.code, ev.message);
        } else this.ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done':
        if (!loseOtherChoices(ev, this.ctx)) this.finish(ev.stopReason, ev.providerReason);
        return;
      case 'raw':
        if (!(this.carryHosted && this.hostedItem(ev.event))) loseNotice(ev, this.ctx);
        return;
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

  delta(isReasoning: boolean, index: number, contentIndex: number, delta: string): void {
    if (this.ended) this.ctx.lose('raw', `${isReasoning ? 'reasoning_delta' : 'text_delta'} after the terminal event`);
    else if (isReasoning) this.reasoning(index, contentIndex === -1 ? undefined : contentIndex, delta);
    else this.text(index, contentIndex === -1 ? undefined : contentIndex, delta, false);
  }

  abort(): void {
    if (this.ended) return;
    if (this.failure === null) this.writeError('incomplete_stream', 'the source stream ended before the response was done');
    this.fail('the source stream ended before the response was done');
  }
}

function createResponse(ctx: TargetContext): TargetResponse {
  return new ResponsesResponse(ctx);
}

export const openaiResponsesTarget = defineTarget({
  name: 'openai-responses',
  contentType: 'text/event-stream',
  family: FAMILY,
  passThrough: { dialects: FAMILY, framing: 'sse' },
  createResponse,
  writeError(ev, ctx) {
    ctx.write(sseEvent('error', { type: 'error', sequence_number: 0, code: ev.code, message: ev.message, param: null }));
  },
});
