/**
 * The dialects, one definition per file (see types.ts and CONTRIBUTING.md).
 * DIALECTS is the one list: the DialectName union (events.ts), `dialectNames`,
 * the name → definition lookup and auto-detection all come from it.
 */
import type { DialectName, Json } from '../events.js';
import type { DialectDefinition } from './types.js';
import { isObject } from './helpers.js';
import { anthropicMessages } from './anthropic-messages.js';
import { anthropicAgents } from './anthropic-agents.js';
import { claudeAgentSdk } from './claude-agent-sdk.js';
import { gemini } from './gemini.js';
import { geminiInteractions } from './gemini-interactions.js';
import { geminiLive } from './gemini-live.js';
import { openaiAgents } from './openai-agents.js';
import { openaiChat } from './openai-chat.js';
import { openaiImages } from './openai-images.js';
import { openaiRealtime } from './openai-realtime.js';
import { openaiResponses } from './openai-responses.js';
import { openaiSpeech } from './openai-speech.js';
import { openaiTranscription } from './openai-transcription.js';
import { xaiChat } from './xai-chat.js';
import { xaiMessages } from './xai-messages.js';
import { xaiRealtime } from './xai-realtime.js';
import { xaiResponses } from './xai-responses.js';
import { xaiStt } from './xai-stt.js';
import { xaiTts } from './xai-tts.js';

/**
 * Every dialect, in DETECTION ORDER: `detectDialect` asks each in turn and the
 * first whose `detect` says yes wins, so a dialect is listed before the ones
 * its payloads would also satisfy:
 * - a look-alike told by positive evidence comes before the dialect it looks
 *   like, the family's catch-all, which is last of its family (xAI's dialects,
 *   told by a grok model, before OpenAI's and Anthropic's);
 * - Chat chunks first: a chunk is one whatever else it carries;
 * - the agent session streams (claude-agent-sdk, openai-agents,
 *   anthropic-agents: their own message types, `agent.session.*`, Managed
 *   Agents' types with `processed_at`) before the typed vocabularies:
 *   Managed Agents has `session.*` types as Realtime does;
 * - Interactions (`event_type`, `interaction.*`) before the typed vocabularies;
 * - Realtime before Responses: `response.*` alone is ambiguous, Realtime's
 *   events are told by their ids (see detect.ts);
 * - Live before Gemini: Live sends `usageMetadata` too, next to its own keys;
 * - OpenAI's audio and image SSE (speech, transcription, images): told by
 *   their own `type` prefixes (`speech.audio.`, `transcript.text.`,
 *   `image_generation.` / `image_edit.`), which no other dialect claims;
 *   listed before the typed vocabularies all the same; so are xAI's voice
 *   sockets (TTS: bare `audio.delta` / `audio.done`; STT: `transcript.created`
 *   / `.partial` / `.done`).
 */
export const DIALECTS = [
  xaiChat,
  openaiChat,
  claudeAgentSdk,
  openaiAgents,
  anthropicAgents,
  geminiInteractions,
  openaiSpeech,
  openaiTranscription,
  openaiImages,
  xaiTts,
  xaiStt,
  xaiRealtime,
  openaiRealtime,
  xaiResponses,
  openaiResponses,
  xaiMessages,
  anthropicMessages,
  geminiLive,
  gemini,
] as const;

/** Every dialect name, in detection order. */
export const dialectNames: DialectName[] = DIALECTS.map((d) => d.name);

/** Name → definition. */
export const dialects = Object.fromEntries(DIALECTS.map((d) => [d.name, d])) as Readonly<Record<DialectName, DialectDefinition>>;

/** Whether `name` names a dialect (own names only: not `toString` and the like). */
export function isDialectName(name: string): name is DialectName {
  return Object.hasOwn(dialects, name);
}

/** Returns the dialect of `payload`, or null when the payload alone does not tell. */
export function detectDialect(payload: Json): DialectName | null {
  if (!isObject(payload)) return null;
  for (const d of DIALECTS) if (d.detect(payload)) return d.name;
  return null;
}

/** The wire family of a dialect (see DialectDefinition.family). */
export function familyOf(name: DialectName): string {
  return dialects[name].family;
}

/** The last dialect of each family in DIALECTS: its catch-all. */
const lastOfFamily = new Map<string, DialectName>();
for (const d of DIALECTS) lastOfFamily.set(d.family, d.name);
const catchAlls = new Set(lastOfFamily.values());

/**
 * Whether `name` is its family's catch-all (listed last of its family): what
 * a payload of the family is detected as when nothing marks it as one of the
 * family's other dialects (a Chat chunk without a grok model is openai-chat).
 * A payload detected as a catch-all is no evidence against the family's other
 * dialects; one detected as another dialect of the family is.
 */
export function isCatchAll(name: DialectName): boolean {
  return catchAlls.has(name);
}
