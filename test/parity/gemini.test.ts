/**
 * Gemini parity: our final vs what `@google/genai` `generateContentStream`
 * yields for the same bytes, concatenated (the SDK has no final-message helper:
 * a caller concatenates `chunk.text`, collects `chunk.functionCalls`, keeps the
 * last usageMetadata and finishReason). Every gemini-sse and gemini-json-array
 * corpus file and every fixture of fixtures/gemini.
 *
 * Calls: the SDK's `functionCalls` are every functionCall part; the client's
 * calls (our `toolCalls`) are those the model's own content does not answer
 * with a functionResponse (server-side MCP runs the others). The calls the
 * provider runs (executableCode, toolCall, such a functionCall) and their
 * results are compared with our content's provider-executed blocks; inlineData
 * images with our file blocks; the grounding / URL context / citation sources'
 * URLs with our citations'.
 *
 * Integer enums (Vertex `enum-encoding=int`): the SDK passes them through as
 * numbers; they are read by the proto's numbering here.
 *
 * The SDK only reads `alt=sse` framing: a JSON-array body ends in "Incomplete
 * JSON segment at the end". For those files the SDK reads the array's elements
 * re-framed as SSE (same payloads, `data: <json>\r\n\r\n`), while we read the
 * original array bytes.
 */
import t, { type Test } from 'tap';
import type { FunctionCall, GenerateContentResponse, GenerateContentResponseUsageMetadata, Part } from '@google/genai';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { Json, StopReason, Usage } from '../../lib/events.js';
import { bothRan, endsInError, failedAsDocumented, oneFinal } from '../helpers/parity.js';
import { geminiChunks, NO_USAGE, ourChoice, ourFinals, parityInputs, type ChoiceView, type HttpOptions, type ParityInput } from '../helpers/sdk.js';

const inputs = parityInputs(['gemini-sse', 'gemini-json-array'], ['gemini']);

/** The JSON-array body's elements as an alt=sse body (the only framing the SDK reads). */
function asSse(bytes: Buffer): Buffer {
  const elements = JSON.parse(bytes.toString('utf8')) as unknown[];
  return Buffer.from(elements.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join(''));
}

function sdkBytes(input: ParityInput): Buffer {
  return input.name.endsWith('.json') ? asSse(input.bytes) : input.bytes;
}

/**
 * The response the SDK reads. Its SSE reader joins its whole buffer again for
 * every piece that comes (quadratic in an event's size): the 1.3 MB image
 * event in pieces of 1–64 bytes took it 90 s, most of the file's time limit.
 * An input over 256 KiB reaches it in pieces of up to 64 KiB (what it reads
 * does not depend on the pieces); ours is read in the small ones.
 */
function sdkHttp(input: ParityInput): HttpOptions {
  return input.bytes.length > 256 * 1024 ? { ...input.http, maxChunk: 64 * 1024 } : input.http;
}

// ---- Vertex streamed function-call arguments, assembled independently ----

type Tree = { [key: string]: Json } | Json[];

/** `$.a.b[0]['c']` → ['a', 'b', 0, 'c']. */
function pathOf(jsonPath: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /\.([^.[]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/g;
  for (const m of jsonPath.slice(1).matchAll(re)) out.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? m[4])!);
  return out;
}

/**
 * Applies `partialArgs` entries to an arguments tree: each entry sets the value
 * at its jsonPath; a string entry with `willContinue` stays open and the next
 * string entry for the same path is appended to it.
 */
class Args {
  readonly root: { [key: string]: Json } = {};
  private open: string | null = null;

  apply(entries: NonNullable<FunctionCall['partialArgs']>): void {
    for (const e of entries) {
      const path = e.jsonPath ?? '';
      const segs = pathOf(path);
      let value: Json;
      if (e.stringValue !== undefined) value = e.stringValue;
      else if (e.numberValue !== undefined) value = e.numberValue;
      else if (e.boolValue !== undefined) value = e.boolValue;
      else if ('nullValue' in e) value = null;
      else continue;
      let node: Tree = this.root;
      for (let i = 0; i < segs.length - 1; i++) {
        const seg = segs[i]!;
        const child = (node as Record<string | number, Json>)[seg];
        if (child === undefined || child === null || typeof child !== 'object') {
          const fresh: Tree = typeof segs[i + 1] === 'number' ? [] : {};
          (node as Record<string | number, Json>)[seg] = fresh;
          node = fresh;
        } else node = child as Tree;
      }
      const leaf = segs[segs.length - 1]!;
      const target = node as Record<string | number, Json>;
      if (typeof value === 'string' && this.open === path) target[leaf] = String(target[leaf] ?? '') + value;
      else target[leaf] = value;
      this.open = typeof value === 'string' && e.willContinue === true ? path : null;
    }
  }
}

// ---- the SDK's chunks, concatenated per candidate ----

interface CandidateView extends ChoiceView {
  /** Ids the SDK gave (undefined: Gemini sent none, we make one up). */
  sdkIds: (string | undefined)[];
  /** The provider-executed calls and their results, in order (as our content's blocks). */
  hosted: Json[];
  /** inlineData parts that are not audio. */
  files: { mimeType: string | null; data: string }[];
  /** URLs of the grounding chunks, retrieved URL context and citation sources. */
  urls: string[];
}

// google/cloud/aiplatform/v1 content.proto Candidate.FinishReason and prediction_service.proto BlockedReason numbering.
const FINISH_NAMES = ['FINISH_REASON_UNSPECIFIED', 'STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'MALFORMED_FUNCTION_CALL'];
const BLOCK_NAMES = ['BLOCKED_REASON_UNSPECIFIED', 'SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT'];
const nameOf = (v: unknown, names: string[]): string | undefined => (typeof v === 'number' ? (names[v] ?? String(v)) : (v as string | undefined));

const REFUSALS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

function stopOf(finish: string | null, called: boolean): StopReason | null {
  if (finish === null) return null;
  if (finish === 'STOP') return called ? 'tool_use' : 'end';
  if (finish === 'MAX_TOKENS') return 'max_tokens';
  return REFUSALS.has(finish) ? 'refusal' : 'other';
}

/**
 * Candidate k over every chunk: text = the text parts that are not thoughts
 * (what `chunk.text` concatenates), reasoning = the thought parts, tool calls
 * = the functionCall parts (a Vertex streamed call is its named part plus the
 * name-less continuation parts up to the one without willContinue), stop = the
 * last finishReason.
 */
function candidateView(chunks: GenerateContentResponse[], k: number): CandidateView {
  let text = '';
  let reasoning = '';
  let finish: string | null = null;
  const calls: { id: string | undefined; name: string; args: Json | Args; server?: true }[] = [];
  const hosted: { block: Json; call?: (typeof calls)[number] }[] = [];
  const files: { mimeType: string | null; data: string }[] = [];
  const urls = new Set<string>();
  let streaming: Args | null = null;
  for (const chunk of chunks) {
    (chunk.candidates ?? []).forEach((cand, position) => {
      if ((cand.index ?? position) !== k) return;
      for (const g of cand.groundingMetadata?.groundingChunks ?? []) {
        const uri = g.web?.uri ?? g.retrievedContext?.uri ?? g.maps?.uri;
        if (uri !== undefined) urls.add(uri);
      }
      for (const m of cand.urlContextMetadata?.urlMetadata ?? []) {
        if (m.retrievedUrl !== undefined && nameOf(m.urlRetrievalStatus, []) === 'URL_RETRIEVAL_STATUS_SUCCESS') urls.add(m.retrievedUrl);
      }
      for (const c of cand.citationMetadata?.citations ?? []) if (c.uri !== undefined) urls.add(c.uri);
      for (const p of (cand.content?.parts ?? []) as Part[]) {
        const fc = p.functionCall;
        const fr = p.functionResponse;
        if (fr !== undefined) {
          // The model's own content answers a call: the server ran it (server-side MCP).
          const call = calls.find((c) => c.server === undefined && ((fr.id !== undefined && c.id === fr.id) || c.name === fr.name));
          if (call !== undefined) {
            call.server = true;
            hosted.push({ block: { type: 'tool_call', name: call.name, arguments: call.args as Json, providerExecuted: true }, call });
          }
          hosted.push({ block: { type: 'tool_result', name: call?.name ?? fr.name ?? '', result: (fr.response ?? null) as Json } });
        } else if (p.executableCode !== undefined) {
          const args: { [key: string]: Json } = {};
          if (p.executableCode.language !== undefined) args['language'] = nameOf(p.executableCode.language, ['LANGUAGE_UNSPECIFIED', 'PYTHON'])!;
          if (p.executableCode.code !== undefined) args['code'] = p.executableCode.code;
          hosted.push({ block: { type: 'tool_call', name: 'code_execution', arguments: args, providerExecuted: true } });
        } else if (p.codeExecutionResult !== undefined) {
          const ok = nameOf(p.codeExecutionResult.outcome, ['OUTCOME_UNSPECIFIED', 'OUTCOME_OK']) === 'OUTCOME_OK';
          hosted.push({ block: { type: 'tool_result', name: 'code_execution', result: p.codeExecutionResult as Json, ...(ok ? {} : { isError: true }) } });
        } else if (p.toolCall !== undefined) {
          hosted.push({ block: { type: 'tool_call', name: String(p.toolCall.toolType).toLowerCase(), arguments: (p.toolCall.args ?? {}) as Json, providerExecuted: true } });
        } else if (p.toolResponse !== undefined) {
          hosted.push({ block: { type: 'tool_result', name: String(p.toolResponse.toolType).toLowerCase(), result: (p.toolResponse.response ?? null) as Json } });
        } else if (p.inlineData?.data !== undefined && !(p.inlineData.mimeType ?? '').startsWith('audio/')) {
          files.push({ mimeType: p.inlineData.mimeType ?? null, data: p.inlineData.data });
        }
        if (fc !== undefined) {
          if ((fc.name === undefined || fc.name === '') && streaming !== null) {
            if (fc.partialArgs !== undefined) streaming.apply(fc.partialArgs);
            if (fc.willContinue !== true) streaming = null;
          } else if (fc.name !== undefined && fc.name !== '') {
            if (fc.partialArgs !== undefined || fc.willContinue === true) {
              const args = new Args();
              if (fc.partialArgs !== undefined) args.apply(fc.partialArgs);
              calls.push({ id: fc.id, name: fc.name, args });
              streaming = fc.willContinue === true ? args : null;
            } else {
              calls.push({ id: fc.id, name: fc.name, args: (fc.args ?? {}) as Json });
              streaming = null;
            }
          }
        } else if (typeof p.text === 'string') {
          if (p.thought === true) reasoning += p.text;
          else text += p.text;
        }
      }
      if (cand.finishReason !== undefined) finish = nameOf(cand.finishReason, FINISH_NAMES) ?? null;
    });
  }
  const client = calls.filter((c) => c.server === undefined);
  const toolCalls = client.map((c) => ({ id: c.id ?? '', name: c.name, arguments: c.args instanceof Args ? (c.args.root as Json) : c.args }));
  return {
    text,
    refusal: null,
    reasoning,
    toolCalls,
    stopReason: stopOf(finish, client.length > 0),
    providerReason: finish,
    sdkIds: client.map((c) => c.id),
    hosted: hosted.map((h) => h.block),
    files,
    urls: [...urls].sort(),
  };
}

/** Candidate indexes that appear in the chunks. */
function candidateIndexes(chunks: GenerateContentResponse[]): number[] {
  const ks = new Set<number>();
  for (const c of chunks) (c.candidates ?? []).forEach((cand, i) => ks.add(cand.index ?? i));
  return [...ks].sort((a, b) => a - b);
}

/**
 * usageMetadata is cumulative: the last one counts. Input = prompt + tool-use
 * prompt tokens (cached ones are inside promptTokenCount); output = candidates +
 * thoughts. A Vertex chunk's `{trafficType}` alone is no usage.
 */
function usageOf(chunks: GenerateContentResponse[]): Usage {
  let u: GenerateContentResponseUsageMetadata | undefined;
  for (const c of chunks) if (c.usageMetadata !== undefined) u = c.usageMetadata;
  if (u === undefined) return NO_USAGE;
  const sum = (a?: number, b?: number): number | null => (a === undefined && b === undefined ? null : (a ?? 0) + (b ?? 0));
  const input = sum(u.promptTokenCount, u.toolUsePromptTokenCount);
  const output = sum(u.candidatesTokenCount, u.thoughtsTokenCount);
  const total = u.totalTokenCount ?? (input !== null && output !== null ? input + output : null);
  if (input === null && output === null && total === null) return NO_USAGE;
  return { inputTokens: input, outputTokens: output, totalTokens: total, reasoningTokens: u.thoughtsTokenCount ?? null, cachedInputTokens: u.cachedContentTokenCount ?? null };
}

/** Every non-empty thoughtSignature, in order (on text, thought, function-call or other parts). */
function signaturesOf(chunks: GenerateContentResponse[]): string[] {
  const out: string[] = [];
  for (const c of chunks) for (const cand of c.candidates ?? []) for (const p of cand.content?.parts ?? []) if (p.thoughtSignature) out.push(p.thoughtSignature);
  return out;
}

function blockReasonOf(chunks: GenerateContentResponse[]): string | null {
  for (const c of chunks) if (c.promptFeedback?.blockReason !== undefined) return nameOf(c.promptFeedback.blockReason, BLOCK_NAMES)!;
  return null;
}

/** Our provider-executed calls and results (ids aside: the SDK's parts pair them by position), files and cited URLs. */
function ourExtras(f: FinalResult): { hosted: Json[]; files: { mimeType: string | null; data: string }[]; urls: string[] } {
  const hosted: Json[] = [];
  const files: { mimeType: string | null; data: string }[] = [];
  for (const b of f.content) {
    if (b.type === 'tool_call' && b.providerExecuted === true) hosted.push({ type: 'tool_call', name: b.name, arguments: b.arguments, providerExecuted: true });
    else if (b.type === 'tool_result') hosted.push({ type: 'tool_result', name: b.name, result: b.result, ...(b.isError === true ? { isError: true } : {}) });
    else if (b.type === 'file') files.push({ mimeType: b.mimeType, data: b.data });
  }
  const urls = [...new Set(f.citations.flatMap((c) => (c.url === undefined ? [] : [c.url])))].sort();
  return { hosted, files, urls };
}

/** Our choice k against the SDK's candidate k: everything, with made-up ids where Gemini sent none. */
function compareChoice(tt: Test, ours: ChoiceView | undefined, sdk: CandidateView, k: number, complete: boolean): void {
  if (ours === undefined) {
    tt.fail(`we have no choice ${k}`);
    return;
  }
  const { sdkIds, hosted: _hosted, files: _files, urls: _urls, ...expected } = sdk;
  // Gemini sends no call id (Vertex/AI Studio leave functionCall.id out); we make one up: call_<block>.
  const ids = ours.toolCalls.map((c, i) => (sdkIds[i] === undefined ? undefined : c.id));
  tt.strictSame(ids, sdkIds, `choice ${k}: the ids Gemini sent are kept`);
  for (const [i, c] of ours.toolCalls.entries()) if (sdkIds[i] === undefined) tt.match(c.id, /^call_\d+$/, `choice ${k}: made-up id ${c.id}`);
  tt.equal(new Set(ours.toolCalls.map((c) => c.id)).size, ours.toolCalls.length, `choice ${k}: call ids are distinct`);
  const withIds = { ...expected, toolCalls: expected.toolCalls.map((c, i) => ({ ...c, id: ours.toolCalls[i]?.id ?? c.id })) };
  if (!complete) {
    // No finishReason: the stream was cut. The SDK just stops yielding; we end the response in error.
    withIds.stopReason = 'error';
    withIds.providerReason = null;
  }
  tt.strictSame(ours, withIds, `choice ${k}`);
}

// ---- where the SDK throws, and why ----

const SDK_FAILS: Record<string, RegExp> = {
  // 4xx with a plain JSON error body (Content-Type text/event-stream): the SDK raises on the status.
  'gemini-sse/crewai--http400-not-sse.body': /API key not valid/,
  'gemini-sse/mirascope--http404-not-sse.body': /is not found for API version/,
  // An `{"error": {...}}` chunk mid-stream: the SDK throws after yielding the chunks before it.
  'fixtures/gemini/error-mid-stream.sse': /got status: UNAVAILABLE/,
};

t.test('the SDK cannot read the JSON-array framing itself', async (t) => {
  const arrays = inputs.filter((i) => i.name.endsWith('.json'));
  t.ok(arrays.length >= 9, `${arrays.length} JSON-array bodies`);
  for (const input of arrays) {
    const raw = await geminiChunks(input.bytes);
    t.match(raw.error?.message, /Incomplete JSON segment at the end/, `${input.name}: raw array rejected`);
    t.equal(raw.events.length, 0, `${input.name}: no chunk`);
  }
});

t.test('every gemini input: our final matches the SDK chunks, concatenated', async (t) => {
  t.ok(inputs.length >= 42, `${inputs.length} inputs`);
  for (const input of inputs) {
    await t.test(input.name, async (tt) => {
      const sdk = await geminiChunks(sdkBytes(input), sdkHttp(input));
      const { finals, thrown } = await ourFinals(input.bytes, 'gemini', input.http);
      bothRan(tt, sdk.requests, thrown);
      const ours = oneFinal(tt, finals);
      const chunks = sdk.events;
      const failure = SDK_FAILS[input.name];
      if (sdk.error !== undefined) {
        if (!failedAsDocumented(tt, sdk.error, failure)) return;
        endsInError(tt, ours);
        // What the SDK yielded before it threw, we kept.
        const c0 = candidateView(chunks, 0);
        tt.strictSame({ text: ours.text, reasoning: ours.reasoning }, { text: c0.text, reasoning: c0.reasoning }, 'the text yielded before the failure');
        tt.strictSame(ours.usage, usageOf(chunks), 'the usage yielded before the failure');
        return;
      }
      tt.notOk(failure, 'the SDK did not fail');
      tt.equal(ours.id, chunks.find((c) => c.responseId !== undefined)?.responseId ?? null, 'id (responseId)');
      tt.equal(ours.model, chunks.find((c) => c.modelVersion !== undefined)?.modelVersion ?? null, 'model (modelVersion)');
      tt.strictSame(ours.usage, usageOf(chunks), 'usage');
      tt.strictSame(
        ours.signatures.map((s) => s.signature),
        signaturesOf(chunks),
        'thought signatures',
      );
      const blockReason = blockReasonOf(chunks);
      const ks = candidateIndexes(chunks);
      if (blockReason !== null && ks.length === 0) {
        // A blocked prompt: no candidates, promptFeedback.blockReason instead.
        tt.strictSame(ours.errors, [], 'no errors');
        tt.strictSame(ourChoice(ours), { text: '', refusal: null, reasoning: '', toolCalls: [], stopReason: 'refusal', providerReason: blockReason }, 'a refusal');
        return;
      }
      const views = ks.map((k) => candidateView(chunks, k));
      const complete = views.every((v) => v.providerReason !== null);
      if (complete) tt.strictSame(ours.errors, [], 'no errors');
      else tt.strictSame(ours.errors.map((e) => e.code), ['incomplete_stream'], 'a stream without finishReason is reported cut');
      tt.equal(ours.choices?.length ?? 1, Math.max(1, ks.length), 'choice count');
      ks.forEach((k, i) => compareChoice(tt, ourChoice(ours, k), views[i]!, k, complete));
      if (ks.length === 1) {
        const extras = ourExtras(ours);
        tt.strictSame(extras.hosted, views[0]!.hosted, 'provider-executed calls and their results (content)');
        tt.strictSame(extras.files, views[0]!.files, 'files (content)');
        tt.strictSame(extras.urls, views[0]!.urls, 'cited URLs');
      }
    });
  }
});
