/**
 * `detectDialect` decides today what it decided when this table was recorded
 * (before the registry refactor of issue 33): for every JSON payload of every
 * corpus file and every hand-written fixture (client messages of captures
 * included), and for a grid of made-up payloads that mix the fields the
 * dialects are told apart by (chat chunks, `type` prefixes, `event_id`,
 * grok models, Gemini keys…), so precedence between look-alikes is pinned
 * too, not only the shapes real streams have.
 *
 * Also the registry's derived facts (names, families, catch-alls, what doctor
 * reads off the definitions).
 *
 * Re-record (only for a deliberate change of detection):
 * `WIREFOLD_RECORD_DETECT=1 npx tap test/dialects/detect.test.ts` prints the tables.
 */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { detectDialect, dialectNames } from '../../lib/index.js';
import type { DialectName, Json, JsonObject, ProviderEvent } from '../../lib/events.js';
import { createDecoder } from '../../lib/dialects/decoder.js';
import { createAutoFramer } from '../../lib/framing/detect.js';
import { chain } from '../../lib/stage.js';
import { createNormalizer } from '../../lib/dialects/normalizer.js';
import { DIALECTS, dialects, isCatchAll, isDialectName } from '../../lib/dialects/registry.js';
import { corpusFiles, repoRoot } from '../helpers/corpus.js';

const RECORD = process.env['WIREFOLD_RECORD_DETECT'] === '1';

/** Every file under fixtures/ but the corpus and the notes beside the fixtures (`.md`), sorted by path. */
function fixtureFiles(): { name: string; bytes: Buffer }[] {
  const out: { name: string; bytes: Buffer }[] = [];
  const walk = (dir: string): void => {
    for (const f of readdirSync(dir).sort()) {
      const path = join(dir, f);
      if (statSync(path).isDirectory()) walk(path);
      else if (!f.endsWith('.md')) out.push({ name: relative(join(repoRoot, 'fixtures'), path), bytes: readFileSync(path) });
    }
  };
  for (const d of readdirSync(join(repoRoot, 'fixtures')).sort()) {
    if (d === 'corpus') continue;
    const path = join(repoRoot, 'fixtures', d);
    if (statSync(path).isDirectory()) walk(path);
  }
  return out;
}

/** The JSON payloads of a file, in order, client messages parsed too; up to a fatal framing error, if any. */
function payloads(bytes: Buffer): Json[] {
  const stage = chain(createAutoFramer(), createDecoder({ captures: 'all' }));
  const out: Json[] = [];
  const emit = (pe: ProviderEvent): void => {
    if (pe.kind === 'json') out.push(pe.payload);
  };
  try {
    stage.push(bytes, emit);
    stage.end(emit);
  } catch {
    // (a JSON array that breaks off, a frame too large…: the payloads before it count)
  }
  return out;
}

/** The detections of a file's payloads, run-length encoded: `openai-chat*12 -*1` (`-`: null). */
function detections(bytes: Buffer): string {
  const runs: [string, number][] = [];
  for (const p of payloads(bytes)) {
    const d = detectDialect(p) ?? '-';
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0] === d) last[1]++;
    else runs.push([d, 1]);
  }
  return runs.map(([d, n]) => `${d}*${n}`).join(' ');
}

// ---- the grid of made-up payloads

const TYPES: (Json | undefined)[] = [
  undefined,
  42,
  'ping',
  'error',
  'foo',
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'response.created',
  'response.output_text.delta',
  'response.completed',
  'response.done',
  'response.output_audio.delta',
  'response.audio_transcript.delta',
  'session.created',
  'session.updated',
  'conversation.created',
  'conversation.item.created',
  'input_audio_buffer.speech_started',
  'output_audio_buffer.started',
  'rate_limits.updated',
  'interaction.start',
  'step.delta',
  'content.delta',
];

const EXTRAS: JsonObject[] = [
  { object: 'chat.completion.chunk' },
  { choices: [] },
  { model: 'grok-4' },
  { model: '' },
  { model: 'gpt-4o' },
  { event_type: 'content.delta' },
  { event_id: 'event_1' },
  { event_id: '0b6a1c2e-uuid' },
  { sequence_number: 1 },
  { response: { object: 'realtime.response' } },
  { response: { model: 'Grok-3' } },
  { message: { model: 'grok-3' } },
  { session: { model: 'grok-voice' } },
  { timestamp: 1 },
  { candidates: [] },
  { usageMetadata: {} },
  { promptFeedback: {} },
  { serverContent: {} },
  { setupComplete: {} },
  { error: { message: 'x' } },
];

/** The grid: each type alone, with each extra, and with each pair of extras; then a few non-objects. */
function grid(): Json[] {
  const out: Json[] = [];
  const make = (type: Json | undefined, extras: JsonObject[]): JsonObject => {
    const p: JsonObject = type === undefined ? {} : { type };
    for (const e of extras) Object.assign(p, e);
    return p;
  };
  for (const type of TYPES) {
    out.push(make(type, []));
    for (let i = 0; i < EXTRAS.length; i++) {
      out.push(make(type, [EXTRAS[i]!]));
      for (let j = i + 1; j < EXTRAS.length; j++) out.push(make(type, [EXTRAS[i]!, EXTRAS[j]!]));
    }
  }
  out.push(null, 42, 'text', [], [{ type: 'message_start' }], true);
  return out;
}

/** One letter per dialect in the grid's recording (`.`: null). */
const LETTERS: Record<string, string> = {
  'openai-chat': 'c',
  'xai-chat': 'C',
  'openai-responses': 'r',
  'xai-responses': 'R',
  'anthropic-messages': 'm',
  'xai-messages': 'M',
  gemini: 'g',
  'gemini-interactions': 'i',
  'gemini-live': 'l',
  'openai-realtime': 't',
  'xai-realtime': 'T',
};

function gridCodes(): string {
  return grid()
    .map((p) => {
      const d = detectDialect(p);
      return d === null ? '.' : LETTERS[d] ?? '?';
    })
    .join('');
}

// ---- the recordings (from the code before the refactor)

const FILES: Record<string, string> = {
  "corpus/anthropic-messages/anthropic-sdk-python--max-tokens-mid-tool-input.sse": "anthropic-messages*2 -*1 anthropic-messages*13",
  "corpus/anthropic-messages/anthropic-sdk-python--refusal-during-thinking.sse": "anthropic-messages*2 -*1 anthropic-messages*11",
  "corpus/anthropic-messages/anthropic-sdk-python--text-then-tool-use.sse": "anthropic-messages*2 -*1 anthropic-messages*12",
  "corpus/anthropic-messages/anthropic-sdk-python--tool-refusal.sse": "anthropic-messages*18",
  "corpus/anthropic-messages/llm-anthropic--adaptive-thinking.sse": "anthropic-messages*2 -*1 anthropic-messages*26",
  "corpus/anthropic-messages/llm-anthropic--parallel-tool-use.sse": "anthropic-messages*2 -*1 anthropic-messages*7",
  "corpus/anthropic-messages/llm-anthropic--stop-sequence.sse": "anthropic-messages*2 -*1 anthropic-messages*7",
  "corpus/anthropic-messages/llm-anthropic--text-basic.sse": "anthropic-messages*2 -*1 anthropic-messages*7",
  "corpus/anthropic-messages/llm-anthropic--thinking-then-tool-use.sse": "anthropic-messages*2 -*1 anthropic-messages*10",
  "corpus/anthropic-messages/mirascope--http404-error.body": "-*1",
  "corpus/anthropic-messages/pydantic-ai--advisor-tool.sse": "anthropic-messages*2 -*1 anthropic-messages*18",
  "corpus/anthropic-messages/pydantic-ai--code-execution-bash.sse": "anthropic-messages*2 -*1 anthropic-messages*32",
  "corpus/anthropic-messages/pydantic-ai--compaction-block.sse": "anthropic-messages*2 -*1 anthropic-messages*9",
  "corpus/anthropic-messages/pydantic-ai--mcp-tool-use.sse": "anthropic-messages*3 -*1 anthropic-messages*53 -*1 anthropic-messages*5",
  "corpus/anthropic-messages/pydantic-ai--pause-turn-continuation.sse": "anthropic-messages*126 -*1 anthropic-messages*113",
  "corpus/anthropic-messages/pydantic-ai--pause-turn.sse": "anthropic-messages*2 -*1 anthropic-messages*143 -*1 anthropic-messages*21",
  "corpus/anthropic-messages/pydantic-ai--redacted-thinking.sse": "anthropic-messages*4 -*1 anthropic-messages*1 -*1 anthropic-messages*1 -*1 anthropic-messages*18",
  "corpus/anthropic-messages/pydantic-ai--text-editor-code-execution.sse": "anthropic-messages*2 -*1 anthropic-messages*59",
  "corpus/anthropic-messages/pydantic-ai--text-only.sse": "anthropic-messages*2 -*1 anthropic-messages*4",
  "corpus/anthropic-messages/pydantic-ai--thinking-signature-text.sse": "anthropic-messages*2 -*1 anthropic-messages*115",
  "corpus/anthropic-messages/pydantic-ai--tool-search-then-tool-use.sse": "anthropic-messages*2 -*1 anthropic-messages*33",
  "corpus/anthropic-messages/pydantic-ai--web-fetch.sse": "anthropic-messages*3 -*1 anthropic-messages*48",
  "corpus/anthropic-messages/pydantic-ai--web-search-no-ping.sse": "anthropic-messages*119",
  "corpus/anthropic-messages/pydantic-ai--web-search-thinking-citations.sse": "anthropic-messages*3 -*1 anthropic-messages*107",
  "corpus/anthropic-messages/vercel-ai--code-execution-20250825.sse": "anthropic-messages*4 -*1 anthropic-messages*243",
  "corpus/anthropic-messages/vercel-ai--context-management.sse": "anthropic-messages*2 -*1 anthropic-messages*19",
  "corpus/anthropic-messages/vercel-ai--fallback-block.sse": "anthropic-messages*9",
  "corpus/anthropic-messages/vercel-ai--refusal-no-content.sse": "anthropic-messages*1 -*1 anthropic-messages*2",
  "corpus/anthropic-messages/vercel-ai--tool-use-no-args.sse": "anthropic-messages*4 -*1 anthropic-messages*1 -*1 anthropic-messages*1 -*1 anthropic-messages*4",
  "corpus/gemini-interactions/vercel-ai--after-function-result.sse": "gemini-interactions*10",
  "corpus/gemini-interactions/vercel-ai--basic.sse": "gemini-interactions*9",
  "corpus/gemini-interactions/vercel-ai--function-call.sse": "gemini-interactions*9",
  "corpus/gemini-interactions/vercel-ai--google-search.sse": "gemini-interactions*27",
  "corpus/gemini-interactions/vercel-ai--stateful-turn1.sse": "gemini-interactions*10",
  "corpus/gemini-interactions/vercel-ai--stateful-turn2.sse": "gemini-interactions*10",
  "corpus/gemini-interactions/vercel-ai--stateless-turn1.sse": "gemini-interactions*9",
  "corpus/gemini-interactions/vercel-ai--stateless-turn2.sse": "gemini-interactions*10",
  "corpus/gemini-json-array/llm-gemini--after-function-response.json": "gemini*2",
  "corpus/gemini-json-array/llm-gemini--function-call.json": "gemini*2",
  "corpus/gemini-json-array/llm-gemini--gemini3-function-call.json": "gemini*2",
  "corpus/gemini-json-array/llm-gemini--gemini3-text.json": "gemini*3",
  "corpus/gemini-json-array/llm-gemini--multiple-items.json": "gemini*7",
  "corpus/gemini-json-array/llm-gemini--single-element.json": "gemini*1",
  "corpus/gemini-json-array/llm-gemini--structured-output.json": "gemini*5",
  "corpus/gemini-json-array/llm-gemini--text.json": "gemini*3",
  "corpus/gemini-live/js-genai--activity-start-end.ws.jsonl": "-*1 gemini-live*1 -*3 gemini-live*2",
  "corpus/gemini-live/js-genai--generation-complete-usage.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*2",
  "corpus/gemini-live/js-genai--output-transcription.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*3",
  "corpus/gemini-live/js-genai--text-input-audio-out.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*2",
  "corpus/gemini-live/js-genai--tool-call.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*2",
  "corpus/gemini-live/js-genai--vertex-audio-turn.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*2",
  "corpus/gemini-live/js-genai--vertex-tool-call.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*2",
  "corpus/gemini-live/js-genai--vertex-transcription.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*2",
  "corpus/gemini-live/pydantic-ai--audio-in-vad.ws.jsonl": "-*1 gemini-live*1 -*55 gemini-live*16",
  "corpus/gemini-live/pydantic-ai--history-seeding.ws.jsonl": "-*1 gemini-live*1 -*2 gemini-live*65",
  "corpus/gemini-live/pydantic-ai--session-resumption.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*2 -*1 gemini-live*16",
  "corpus/gemini-live/pydantic-ai--tool-call-round.ws.jsonl": "-*1 gemini-live*1 -*1 gemini-live*1 -*1 gemini-live*61",
  "corpus/gemini-sse/crewai--http400-not-sse.body": "-*1",
  "corpus/gemini-sse/crewai--parallel-function-calls.sse": "gemini*1",
  "corpus/gemini-sse/js-genai--max-tokens.sse": "gemini*3",
  "corpus/gemini-sse/js-genai--vertex-max-tokens.sse": "gemini*3",
  "corpus/gemini-sse/mirascope--http404-not-sse.body": "-*1",
  "corpus/gemini-sse/pydantic-ai--after-function-response.sse": "gemini*3",
  "corpus/gemini-sse/pydantic-ai--code-execution.sse": "gemini*6",
  "corpus/gemini-sse/pydantic-ai--file-search-grounding.sse": "gemini*8",
  "corpus/gemini-sse/pydantic-ai--function-call-thought-signature.sse": "gemini*2",
  "corpus/gemini-sse/pydantic-ai--function-calls.sse": "gemini*1",
  "corpus/gemini-sse/pydantic-ai--google-search-grounding.sse": "gemini*10",
  "corpus/gemini-sse/pydantic-ai--structured-output-with-search.sse": "gemini*5",
  "corpus/gemini-sse/pydantic-ai--text-basic.sse": "gemini*3",
  "corpus/gemini-sse/pydantic-ai--thought-summaries.sse": "gemini*23",
  "corpus/gemini-sse/pydantic-ai--url-context.sse": "gemini*2",
  "corpus/gemini-sse/pydantic-ai--usage-mid-stream.sse": "gemini*3",
  "corpus/gemini-sse/pydantic-ai--vertex-flex-tier.sse": "gemini*1",
  "corpus/gemini-sse/vercel-ai--array-args-missing-terminal-call.sse": "gemini*16",
  "corpus/gemini-sse/vercel-ai--no-args-function-call.sse": "gemini*15",
  "corpus/gemini-sse/vercel-ai--thought-signature-empty-text.sse": "gemini*3",
  "corpus/gemini-sse/vercel-ai--vertex-partial-function-args-nested.sse": "gemini*76",
  "corpus/gemini-sse/vercel-ai--vertex-partial-function-args.sse": "gemini*8",
  "corpus/openai-chat/crewai--compat-azure-prompt-filter.sse": "openai-chat*13",
  "corpus/openai-chat/llm--compat-openrouter-repeated-tool-id.sse": "openai-chat*5",
  "corpus/openai-chat/llm--compat-tool-args-null.sse": "openai-chat*3",
  "corpus/openai-chat/mirascope--http404-error.body": "-*1",
  "corpus/openai-chat/openai-python--content-logprobs.sse": "openai-chat*5",
  "corpus/openai-chat/openai-python--max-tokens-length.sse": "openai-chat*4",
  "corpus/openai-chat/openai-python--multiple-choices.sse": "openai-chat*49",
  "corpus/openai-chat/openai-python--parallel-tool-calls.sse": "openai-chat*25",
  "corpus/openai-chat/openai-python--refusal-logprobs.sse": "openai-chat*14",
  "corpus/openai-chat/openai-python--refusal.sse": "openai-chat*13",
  "corpus/openai-chat/openai-python--structured-output-long.sse": "openai-chat*180",
  "corpus/openai-chat/openai-python--text-usage.sse": "openai-chat*33",
  "corpus/openai-chat/openai-python--tool-call-strict.sse": "openai-chat*13",
  "corpus/openai-chat/pydantic-ai--compat-deepseek-reasoning-content.sse": "openai-chat*211",
  "corpus/openai-chat/pydantic-ai--compat-groq-error-event.sse": "openai-chat*94 -*1",
  "corpus/openai-chat/pydantic-ai--compat-openrouter-error-chunk.sse": "openai-chat*4",
  "corpus/openai-chat/pydantic-ai--long-tool-arguments-obfuscation.sse": "openai-chat*56",
  "corpus/openai-chat/pydantic-ai--moderation-field.sse": "openai-chat*6",
  "corpus/openai-chat/pydantic-ai--parallel-tool-calls-obfuscation.sse": "openai-chat*7",
  "corpus/openai-realtime/pydantic-ai--audio-in-server-vad.ws.jsonl": "openai-realtime*1 -*1 openai-realtime*1 -*55 openai-realtime*66",
  "corpus/openai-realtime/pydantic-ai--compat-azure-tool-call.ws.jsonl": "openai-realtime*1 -*1 openai-realtime*1 -*2 openai-realtime*20 -*1 openai-realtime*1 -*1 openai-realtime*22",
  "corpus/openai-realtime/pydantic-ai--compat-xai-tool-call.ws.jsonl": "xai-realtime*1 -*1 xai-realtime*3 -*2 openai-realtime*21 -*2 openai-realtime*24",
  "corpus/openai-realtime/pydantic-ai--history-seeding-text.ws.jsonl": "openai-realtime*1 -*1 openai-realtime*1 -*4 openai-realtime*27",
  "corpus/openai-realtime/pydantic-ai--text-in-audio-out.ws.jsonl": "openai-realtime*1 -*1 openai-realtime*1 -*2 openai-realtime*19",
  "corpus/openai-realtime/pydantic-ai--three-vad-turns-rate-limits.ws.jsonl": "openai-realtime*1 -*1 openai-realtime*1 -*18 openai-realtime*1 -*12 openai-realtime*1 -*2 openai-realtime*2 -*4 openai-realtime*1 -*4 openai-realtime*1 -*3 openai-realtime*5 -*2 openai-realtime*8 -*2 openai-realtime*6 -*1 openai-realtime*3 -*1 openai-realtime*3 -*1 openai-realtime*2 -*1 openai-realtime*7 -*42 openai-realtime*1 -*12 openai-realtime*1 -*2 openai-realtime*2 -*4 openai-realtime*1 -*4 openai-realtime*1 -*3 openai-realtime*5 -*2 openai-realtime*8 -*1 openai-realtime*6 -*1 openai-realtime*2 -*1 openai-realtime*4 -*1 openai-realtime*2 -*1 openai-realtime*7 -*43 openai-realtime*1 -*13 openai-realtime*1 -*2 openai-realtime*2 -*3 openai-realtime*1 -*4 openai-realtime*1 -*3 openai-realtime*5 -*2 openai-realtime*4 -*1 openai-realtime*4 -*1 openai-realtime*5 -*1 openai-realtime*1 -*1 openai-realtime*4 -*1 openai-realtime*2 -*1 openai-realtime*2 -*1 openai-realtime*2 -*1 openai-realtime*2 -*1 openai-realtime*3 -*1 openai-realtime*2 -*1 openai-realtime*6 -*1 openai-realtime*2 -*18",
  "corpus/openai-realtime/pydantic-ai--tool-call-round.ws.jsonl": "openai-realtime*1 -*1 openai-realtime*1 -*2 openai-realtime*18 -*1 openai-realtime*3 -*1 openai-realtime*22",
  "corpus/openai-realtime/pydantic-ai--webrtc-sideband-audio.ws.jsonl": "-*1 openai-realtime*1 -*2 openai-realtime*18",
  "corpus/openai-responses/llm--function-call.sse": "openai-responses*17",
  "corpus/openai-responses/llm--text-basic.sse": "openai-responses*9",
  "corpus/openai-responses/mirascope--http400-error.body": "-*1",
  "corpus/openai-responses/pydantic-ai--background-initial.sse": "openai-responses*17",
  "corpus/openai-responses/pydantic-ai--background-resume-starting-after.sse": "openai-responses*16",
  "corpus/openai-responses/pydantic-ai--code-interpreter.sse": "openai-responses*365",
  "corpus/openai-responses/pydantic-ai--compat-openrouter-data-only.sse": "openai-responses*40",
  "corpus/openai-responses/pydantic-ai--file-search.sse": "openai-responses*21",
  "corpus/openai-responses/pydantic-ai--function-call.sse": "openai-responses*11",
  "corpus/openai-responses/pydantic-ai--logprobs.sse": "openai-responses*17",
  "corpus/openai-responses/pydantic-ai--mcp-call.sse": "openai-responses*194",
  "corpus/openai-responses/pydantic-ai--moderation.sse": "openai-responses*12",
  "corpus/openai-responses/pydantic-ai--reasoning-function-call-usage.sse": "openai-responses*14",
  "corpus/openai-responses/pydantic-ai--reasoning-summary.sse": "openai-responses*676",
  "corpus/openai-responses/pydantic-ai--text-after-tool.sse": "openai-responses*15",
  "corpus/openai-responses/pydantic-ai--web-search-annotations.sse": "openai-responses*23",
  "corpus/openai-responses/pydantic-ai--web-search.sse": "openai-responses*61",
  "corpus/openai-responses/vercel-ai--apply-patch.sse": "openai-responses*38",
  "corpus/openai-responses/vercel-ai--error-insufficient-quota.sse": "openai-responses*2 -*1 openai-responses*1",
  "corpus/openai-responses/vercel-ai--image-generation.sse": "openai-responses*16",
  "corpus/openai-responses/vercel-ai--web-search.sse": "openai-responses*185",
  "corpus/xai-chat/vercel-ai--reasoning-content-text.sse": "xai-chat*344",
  "corpus/xai-chat/vercel-ai--reasoning-short.sse": "xai-chat*8",
  "corpus/xai-chat/vercel-ai--reasoning-tool-call.sse": "xai-chat*230",
  "corpus/xai-responses/vercel-ai--text-with-reasoning-store-false.sse": "xai-responses*2 openai-responses*652 xai-responses*1",
  "corpus/xai-responses/vercel-ai--text-with-reasoning.sse": "xai-responses*2 openai-responses*676 xai-responses*1",
  "corpus/xai-responses/vercel-ai--web-search.sse": "xai-responses*2 openai-responses*271 xai-responses*1",
  "corpus/xai-responses/vercel-ai--x-search.sse": "xai-responses*2 openai-responses*1754 xai-responses*1",
  "anthropic-messages/cache-usage.sse": "anthropic-messages*6",
  "anthropic-messages/missing-message-stop.sse": "anthropic-messages*5",
  "anthropic-messages/overloaded-error.sse": "anthropic-messages*2 -*1 anthropic-messages*1 -*1",
  "anthropic-messages/parallel-tool-use.sse": "anthropic-messages*5 -*1 anthropic-messages*12",
  "anthropic-messages/text-with-ping.sse": "anthropic-messages*2 -*1 anthropic-messages*2 -*1 anthropic-messages*4",
  "anthropic-messages/thinking-signature-text.sse": "anthropic-messages*2 -*1 anthropic-messages*11",
  "doctor/anthropic-cut.sse": "anthropic-messages*3",
  "doctor/anthropic-overloaded.sse": "anthropic-messages*3 -*1",
  "doctor/anthropic-trailing.sse": "anthropic-messages*6 -*1",
  "doctor/anthropic-usage.sse": "anthropic-messages*7",
  "doctor/chat-error-no-done.sse": "openai-chat*2 -*1",
  "doctor/chat-invalid-json.sse": "openai-chat*3",
  "doctor/chat-invalid-utf8.sse": "openai-chat*2",
  "doctor/clean-chat.sse": "openai-chat*5",
  "doctor/empty.sse": "",
  "doctor/gemini-bad-array.json": "gemini*1",
  "doctor/gemini-usage-signatures.sse": "gemini*3",
  "doctor/realtime-translation.jsonl": "openai-realtime*9",
  "doctor/responses-gap.sse": "openai-responses*7",
  "doctor/unknown.ndjson": "-*3",
  "doctor/xai-messages-index-reuse.sse": "xai-messages*1 anthropic-messages*8",
  "gemini/error-mid-stream.sse": "gemini*1 -*1",
  "gemini/function-call-signature.sse": "gemini*2",
  "gemini/json-array-two-elements.json": "gemini*2",
  "gemini/max-tokens.sse": "gemini*2",
  "gemini/missing-finish-reason.sse": "gemini*2",
  "gemini/partial-args-cut.sse": "gemini*3",
  "gemini/partial-args-types.sse": "gemini*5",
  "gemini/prompt-blocked.sse": "gemini*1",
  "gemini/safety.sse": "gemini*2",
  "gemini/text-usage-every-chunk.sse": "gemini*3",
  "gemini/thought-empty-signature.sse": "gemini*4",
  "gemini/two-candidates.sse": "gemini*2",
  "gemini-interactions/done-without-completed.sse": "gemini-interactions*5",
  "gemini-interactions/error.sse": "gemini-interactions*4",
  "gemini-interactions/function-call-fragments.sse": "gemini-interactions*9",
  "gemini-interactions/text.sse": "gemini-interactions*11",
  "gemini-live/audio-transcript.json": "gemini-live*11",
  "gemini-live/error.json": "gemini-live*2 -*1",
  "gemini-live/go-away-resumption.json": "gemini-live*6 gemini*1 gemini-live*1",
  "gemini-live/interrupted.json": "gemini-live*9",
  "gemini-live/lyria.json": "gemini-live*4",
  "gemini-live/text-turn.json": "gemini-live*5",
  "gemini-live/tool-call-cancel.json": "gemini-live*8",
  "har/gemini-live.har": "-*1 gemini-live*1 -*1 gemini-live*4",
  "har/openai-realtime.har": "openai-realtime*8 -*1 openai-realtime*14",
  "openai-chat/missing-done.sse": "openai-chat*3",
  "openai-chat/n2.sse": "openai-chat*11",
  "openai-chat/parallel-tool-calls.sse": "openai-chat*12",
  "openai-chat/refusal.sse": "openai-chat*8",
  "openai-chat/text-usage.sse": "openai-chat*8",
  "openai-realtime/audio-transcript.jsonl": "openai-realtime*18",
  "openai-realtime/beta-names.jsonl": "openai-realtime*7",
  "openai-realtime/error.jsonl": "openai-realtime*7",
  "openai-realtime/stop-reasons.jsonl": "openai-realtime*10",
  "openai-realtime/text-turn.jsonl": "openai-realtime*15",
  "openai-realtime/tool-call.jsonl": "openai-realtime*14",
  "openai-responses/error-then-failed.sse": "openai-responses*5 -*1 openai-responses*1",
  "openai-responses/incomplete-max-output-tokens.sse": "openai-responses*11",
  "openai-responses/reasoning-function-call.sse": "openai-responses*20",
  "openai-responses/refusal.sse": "openai-responses*10",
  "openai-responses/sequence-gap.sse": "openai-responses*12",
  "openai-responses/text.sse": "openai-responses*12",
  "openai-responses/two-responses.sse": "openai-responses*20",
  "quickstart/anthropic-tool-use.sse": "anthropic-messages*2 -*1 anthropic-messages*15",
  "xai-chat/reasoning-tool-call.sse": "xai-chat*7",
  "xai-messages/thinking-text-index-reuse.sse": "xai-messages*1 anthropic-messages*10",
  "xai-realtime/ping-first.jsonl": "xai-realtime*1 openai-realtime*2",
  "xai-realtime/voice-tool-call.jsonl": "xai-realtime*3 openai-realtime*9 xai-realtime*1 openai-realtime*4",
  "xai-responses/reasoning-function-call.sse": "xai-responses*2 openai-responses*12 xai-responses*1"
};

const GRID =
  '.ccCccccccccccccccccccCccccccccccccccccc...i........gggll...i........gggll..i........gggll.iiiiiiiii' +
  'iiiiii........gggll........gggll.......gggll......gggll.....gggll....gggll...gggll..gggll.gggllgggll' +
  'ggllglllll..ccCccccccccccccccccccCccccccccccccccccc...i........gggll...i........gggll..i........gggl' +
  'l.iiiiiiiiiiiiiii........gggll........gggll.......gggll......gggll.....gggll....gggll...gggll..gggll' +
  '.gggllgggllggllglllll..ccCccccccccccccccccccCccccccccccccccccc...iTT.....T........iTT.....T.......iT' +
  'T.....T......iiiiiiiiiiiiiiiTTTTTTTTTTTTTTTTTTTTTTTTTTT.....T..........T.........T........T.......T.' +
  '.....TTTTTTT......................ccCccccccccccccccccccCccccccccccccccccc...itt.t....gggll...itt.t..' +
  '..gggll..itt.t....gggll.iiiiiiiiiiiiiiitt.tttttttttttt.ttttttttttt.t....gggll.t.ttttttttt....gggll..' +
  '..gggll...gggll..gggll.gggllgggllggllglllll..ccCccccccccccccccccccCccccccccccccccccc...i........gggl' +
  'l...i........gggll..i........gggll.iiiiiiiiiiiiiii........gggll........gggll.......gggll......gggll.' +
  '....gggll....gggll...gggll..gggll.gggllgggllggllglllll.mccCccccccccccccccccccCcccccccccccccccccmmmim' +
  'mmmmMmmmmmmmmmmimmmmmMmmmmmmmmmimmmmmMmmmmmmmmiiiiiiiiiiiiiiimmmmmMmmmmmmmmmmmmMmmmmmmmmmmmMmmmmmmmm' +
  'mmMmmmmmmmmmMmmmmmmmmMMMMMMMMMmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmccCccccccccccccccccccCccccccccccc' +
  'ccccccmmmimmmmmMmmmmmmmmmmimmmmmMmmmmmmmmmimmmmmMmmmmmmmmiiiiiiiiiiiiiiimmmmmMmmmmmmmmmmmmMmmmmmmmmm' +
  'mmMmmmmmmmmmmMmmmmmmmmmMmmmmmmmmMMMMMMMMMmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmccCccccccccccccccccccC' +
  'cccccccccccccccccmmmimmmmmMmmmmmmmmmmimmmmmMmmmmmmmmmimmmmmMmmmmmmmmiiiiiiiiiiiiiiimmmmmMmmmmmmmmmmm' +
  'mMmmmmmmmmmmmMmmmmmmmmmmMmmmmmmmmmMmmmmmmmmMMMMMMMMMmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmccCcccccccc' +
  'ccccccccccCcccccccccccccccccmmmimmmmmMmmmmmmmmmmimmmmmMmmmmmmmmmimmmmmMmmmmmmmmiiiiiiiiiiiiiiimmmmmM' +
  'mmmmmmmmmmmmMmmmmmmmmmmmMmmmmmmmmmmMmmmmmmmmmMmmmmmmmmMMMMMMMMMmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm' +
  'ccCccccccccccccccccccCcccccccccccccccccmmmimmmmmMmmmmmmmmmmimmmmmMmmmmmmmmmimmmmmMmmmmmmmmiiiiiiiiii' +
  'iiiiimmmmmMmmmmmmmmmmmmMmmmmmmmmmmmMmmmmmmmmmmMmmmmmmmmmMmmmmmmmmMMMMMMMMMmmmmmmmmmmmmmmmmmmmmmmmmmm' +
  'mmmmmmmmmmmccCccccccccccccccccccCcccccccccccccccccmmmimmmmmMmmmmmmmmmmimmmmmMmmmmmmmmmimmmmmMmmmmmmm' +
  'miiiiiiiiiiiiiiimmmmmMmmmmmmmmmmmmMmmmmmmmmmmmMmmmmmmmmmmMmmmmmmmmmMmmmmmmmmMMMMMMMMMmmmmmmmmmmmmmmm' +
  'mmmmmmmmmmmmmmmmmmmmmrccCccccccccccccccccccCcccccccccccccccccrrrittrtRrrrrrrrrrrrittrtRrrrrrrrrrritt' +
  'rtRrrrrrrrrriiiiiiiiiiiiiiittrttttttttttttrtttttttttttrtRrrrrrrrrrtRtttttttttRRRRRRRRRRrrrrrrrrrrrrr' +
  'rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrccCccccccccccccccccccCcccccccccccccccccrrrittrtRrrrrrrrrrrrittrtRrr' +
  'rrrrrrrrittrtRrrrrrrrrriiiiiiiiiiiiiiittrttttttttttttrtttttttttttrtRrrrrrrrrrtRtttttttttRRRRRRRRRRrr' +
  'rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrccCccccccccccccccccccCcccccccccccccccccrrrittrtRrrrrrrrr' +
  'rrrittrtRrrrrrrrrrrittrtRrrrrrrrrriiiiiiiiiiiiiiittrttttttttttttrtttttttttttrtRrrrrrrrrrtRtttttttttR' +
  'RRRRRRRRRrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrtccCccccccccccccccccccCccccccccccccccccctttitt' +
  'ttttttttttttttitttttttttttttttittttttttttttttiiiiiiiiiiiiiiitttttttttttttttttttttttttttttttttttttttt' +
  'ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttccCccccccccccccccccccCcccccccccccc' +
  'ccccctttittttttttttttttttitttttttttttttttittttttttttttttiiiiiiiiiiiiiiittttttttttttttttttttttttttttt' +
  'tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttccCccccccccccccccccccCc' +
  'cccccccccccccccctttittttttttttttttttitttttttttttttttittttttttttttttiiiiiiiiiiiiiiitttttttttttttttttt' +
  'ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttccCccccccccc' +
  'cccccccccCccccccccccccccccctttittttttTtttttttttittttttTttttttttittttttTtttttttiiiiiiiiiiiiiiittttttT' +
  'ttttttttttttTtttttttttttTttttttttttTtttttttttTttttttttTtttttttTTTTTTTTtttttttttttttttttttttttttttttc' +
  'cCccccccccccccccccccCccccccccccccccccctttittttttTtttttttttittttttTttttttttittttttTtttttttiiiiiiiiiii' +
  'iiiittttttTttttttttttttTtttttttttttTttttttttttTtttttttttTttttttttTtttttttTTTTTTTTttttttttttttttttttt' +
  'ttttttttttccCccccccccccccccccccCccccccccccccccccctttitTttttttttttttttitTtttttttttttttitTtttttttttttt' +
  'iiiiiiiiiiiiiiitTttttttttttttTTTTTTTTTTTTTtttttttttttttttttttttttttttttttttttttttttttttttttttttttttt' +
  'tttttttttttttttttttttccCccccccccccccccccccCccccccccccccccccctttittttttttttttttttitttttttttttttttittt' +
  'tttttttttttiiiiiiiiiiiiiiitttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt' +
  'ttttttttttttttttttttttttttttttttccCccccccccccccccccccCccccccccccccccccctttittttttttttttttttitttttttt' +
  'tttttttittttttttttttttiiiiiiiiiiiiiiittttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt' +
  'tttttttttttttttttttttttttttttttttttttttttttccCccccccccccccccccccCccccccccccccccccctttitttttttttttttt' +
  'ttitttttttttttttttittttttttttttttiiiiiiiiiiiiiiitttttttttttttttttttttttttttttttttttttttttttttttttttt' +
  'ttttttttttttttttttttttttttttttttttttttttttttttttttttttccCccccccccccccccccccCccccccccccccccccctttittt' +
  'tttttttttttttitttttttttttttttittttttttttttttiiiiiiiiiiiiiiittttttttttttttttttttttttttttttttttttttttt' +
  'tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttticcCccccccccccccccccccCccccccccccccc' +
  'cccciiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii' +
  'iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiccCccccccccccccccccccCcc' +
  'ccccccccccccccciiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii' +
  'iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii.ccCcccccccccc' +
  'ccccccccCccccccccccccccccc...i........gggll...i........gggll..i........gggll.iiiiiiiiiiiiiii........' +
  'gggll........gggll.......gggll......gggll.....gggll....gggll...gggll..gggll.gggllgggllggllglllll....' +
  '...';

if (RECORD) {
  const table: Record<string, string> = {};
  for (const f of corpusFiles()) table[`corpus/${f.name}`] = detections(f.bytes);
  for (const f of fixtureFiles()) table[f.name] = detections(f.bytes);
  console.log(JSON.stringify(table, null, 2));
  const codes = gridCodes();
  const lines: string[] = [];
  for (let i = 0; i < codes.length; i += 100) lines.push(codes.slice(i, i + 100));
  console.log(lines.map((l) => `  '${l}'`).join(' +\n'));
}

t.test('every corpus file and fixture: the dialect of each payload', async (t) => {
  const seen = new Set<string>();
  const check = (name: string, bytes: Buffer): void => {
    seen.add(name);
    const got = detections(bytes);
    const want = FILES[name];
    if (want !== undefined) {
      t.equal(got, want, name);
      return;
    }
    // A file added since the recording: under a dialect's directory, its first recognised payload names that dialect.
    const dir = name.split('/').at(-2)!;
    if ((dialectNames as string[]).includes(dir)) t.equal(/^(?:-\*\d+ )?([a-z0-9-]+)\*/.exec(got)?.[1], dir, `${name} (not recorded)`);
  };
  for (const f of corpusFiles()) check(`corpus/${f.name}`, f.bytes);
  for (const f of fixtureFiles()) check(f.name, f.bytes);
  t.same(
    Object.keys(FILES).filter((n) => !seen.has(n)),
    [],
    'every recorded file still exists',
  );
});

t.test('a grid of made-up payloads: precedence between look-alikes', async (t) => {
  const payloadsOfGrid = grid();
  const codes = gridCodes();
  t.equal(codes.length, GRID.length, 'grid size');
  const differ: string[] = [];
  for (let i = 0; i < codes.length; i++) {
    if (codes[i] !== GRID[i]) differ.push(`${JSON.stringify(payloadsOfGrid[i])}: ${GRID[i]} → ${codes[i]}`);
  }
  t.same(differ.slice(0, 20), [], `${differ.length} payloads detected differently (first 20 shown)`);
});

t.test('the hand-picked cases of the old detectDialect test still hold', async (t) => {
  const cases: [Json, string | null][] = [
    [{ object: 'chat.completion.chunk', model: '', choices: [] }, 'openai-chat'],
    [{ id: '', object: '', model: '', choices: [] }, 'openai-chat'],
    [{ object: 'chat.completion.chunk', model: 'grok-3-mini', choices: [] }, 'xai-chat'],
    [{ type: 'message_start', message: { model: 'grok-3' } }, 'xai-messages'],
    [{ type: 'ping' }, null],
    [{ type: 'ping', candidates: [] }, null],
    [{ type: 'conversation.created', event_id: 'event_1' }, 'openai-realtime'],
    [{ type: 'conversation.created', event_id: '1b2c' }, 'xai-realtime'],
    [{ event_type: 'interaction.start' }, 'gemini-interactions'],
  ];
  for (const [payload, want] of cases) t.equal(detectDialect(payload), want, JSON.stringify(payload));
});

/** The eleven dialects of the refactor, with the facts that lived in tables outside them before (normalizer, doctor). */
const BEFORE: Record<string, { family: string; catchAll: boolean; doneSentinel: boolean; session: boolean; readsClientMessages: boolean }> = {
  'openai-chat': { family: 'chat', catchAll: true, doneSentinel: true, session: false, readsClientMessages: false },
  'xai-chat': { family: 'chat', catchAll: false, doneSentinel: true, session: false, readsClientMessages: false },
  'openai-responses': { family: 'responses', catchAll: true, doneSentinel: false, session: false, readsClientMessages: false },
  'xai-responses': { family: 'responses', catchAll: false, doneSentinel: false, session: false, readsClientMessages: false },
  'anthropic-messages': { family: 'messages', catchAll: true, doneSentinel: false, session: false, readsClientMessages: false },
  'xai-messages': { family: 'messages', catchAll: false, doneSentinel: false, session: false, readsClientMessages: false },
  gemini: { family: 'gemini', catchAll: true, doneSentinel: false, session: false, readsClientMessages: false },
  'gemini-interactions': { family: 'interactions', catchAll: true, doneSentinel: false, session: false, readsClientMessages: false },
  'gemini-live': { family: 'live', catchAll: true, doneSentinel: false, session: true, readsClientMessages: true },
  'openai-realtime': { family: 'realtime', catchAll: true, doneSentinel: false, session: true, readsClientMessages: true },
  'xai-realtime': { family: 'realtime', catchAll: false, doneSentinel: false, session: true, readsClientMessages: true },
};

t.test('the registry: one list, the names and lookup derived from it', async (t) => {
  t.same(
    DIALECTS.map((d) => d.name),
    dialectNames,
    'dialectNames is the list, in detection order',
  );
  t.equal(new Set(dialectNames).size, dialectNames.length, 'no name twice');
  for (const d of DIALECTS) t.equal(dialects[d.name], d, `${d.name}: the lookup gives its definition`);
  t.ok(isDialectName('gemini'));
  t.notOk(isDialectName('toString'), 'only own names');
  t.throws(() => createNormalizer({ dialect: 'toString' as never }), { name: 'OptionError' }, 'nor as the dialect option');
  for (const name of Object.keys(BEFORE)) t.ok(isDialectName(name), `${name} is still there`);
});

t.test('the facts the normalizer and doctor held in tables, now on the definitions', async (t) => {
  for (const [name, want] of Object.entries(BEFORE)) {
    const d = dialects[name as DialectName];
    t.same(
      {
        family: d.family,
        catchAll: isCatchAll(d.name),
        doneSentinel: d.doneSentinel === true,
        session: d.session === true,
        readsClientMessages: d.readsClientMessages === true,
      },
      want,
      name,
    );
  }
});
