/**
 * OpenAI image generation and edits streamed as SSE: `POST
 * /v1/images/generations` / `/v1/images/edits` with `stream: true` and
 * `partial_images` 0–3 (openai-node `src/resources/images.ts`
 * `ImageGenPartialImageEvent`, `ImageGenCompletedEvent`,
 * `ImageEditPartialImageEvent`, `ImageEditCompletedEvent`; the API
 * reference's "Image Streaming" page). SSE with `event:` lines (informative
 * only: the payload's `type` is read).
 *
 * - `image_generation.partial_image` / `image_edit.partial_image {b64_json,
 *   partial_image_index, output_format, size, quality, background,
 *   created_at}` → `file` with `partial: true` (index 0): a preview, shown as
 *   an event, never in the final. Its other fields repeat the request's
 *   settings (also on the completed event) and the preview number is its
 *   order, so they are not repeated as `raw`; a partial with fields beyond
 *   these is passed on as `raw` (without its base64) as well.
 * - `image_generation.completed` / `image_edit.completed {b64_json, …,
 *   usage}` → `raw` of the payload **without `b64_json`** (size, quality,
 *   background, created_at kept; the image itself is in the `file` event,
 *   and a second copy of a megabyte-sized base64 would double the stream),
 *   then `file` (not partial: the final's one content block), then `usage`
 *   (`input_tokens`, `output_tokens`, `total_tokens`; `input_tokens_details`
 *   stays in the usage's `raw`), then `done` (stopReason `end`,
 *   providerReason null: the wire gives no reason).
 * - an error payload → terminal `error`, `done` with stopReason `error`
 *   (the shared handling of openai-audio.ts); anything else → `raw`.
 *
 * One response per completed image: the wire has no response id or end
 * marker other than `.completed`, so a request with `n > 1` reads as one
 * response (and one final) per image.
 *
 * The MIME type comes from `output_format` (`png`, `jpeg`, `webp`); without
 * one it is `image/png`, the documented default; an unknown format is told
 * from the image's first bytes, else null (never guessed).
 */
import type { FileEvent, JsonObject } from '../events.js';
import { doneEvent, obj, str, usageEvent } from './helpers.js';
import { OpenAIAudioResponse, tokenUsage } from './openai-audio.js';
import { defineDialect } from './types.js';

export const IMAGE_GENERATION_PREFIX = 'image_generation.';
export const IMAGE_EDIT_PREFIX = 'image_edit.';

const FORMAT_MIME: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp' };

/** The fields a partial image event is documented with (anything else is passed on as raw). */
const PARTIAL_KEYS = new Set(['type', 'b64_json', 'partial_image_index', 'output_format', 'size', 'quality', 'background', 'created_at']);

/** The MIME type of an image from its `output_format` (png when absent), else from its first bytes, else null. */
export function imageMimeType(format: string | undefined, b64: string): string | null {
  if (format === undefined) return 'image/png';
  const known = FORMAT_MIME[format.toLowerCase()];
  if (known !== undefined) return known;
  // Base64 prefixes of the PNG, JPEG, WebP (RIFF) and GIF signatures.
  if (b64.startsWith('iVBORw0KGgo')) return 'image/png';
  if (b64.startsWith('/9j/')) return 'image/jpeg';
  if (b64.startsWith('UklGR')) return 'image/webp';
  if (b64.startsWith('R0lGOD')) return 'image/gif';
  return null;
}

/** The payload without its base64 image: what raw keeps of it. */
function withoutImage(payload: JsonObject): JsonObject {
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(payload)) if (k !== 'b64_json') rest[k] = v;
  return rest;
}

class ImagesResponse extends OpenAIAudioResponse {
  protected onEvent(type: string | undefined, payload: JsonObject): boolean {
    if (type === undefined || !(type.startsWith(IMAGE_GENERATION_PREFIX) || type.startsWith(IMAGE_EDIT_PREFIX))) return false;
    const kind = type.slice(type.indexOf('.') + 1);
    const data = str(payload['b64_json']);
    if (kind === 'partial_image' && data !== undefined && data !== '') {
      this.begin();
      if (Object.keys(payload).some((k) => !PARTIAL_KEYS.has(k))) this.raw(withoutImage(payload));
      this.ctx.emit(this.file(payload, data, true));
      return true;
    }
    if (kind === 'completed') {
      this.begin();
      const usage = obj(payload['usage']);
      this.raw(data === undefined ? payload : withoutImage(payload));
      // A completed event without an image still ends the response (its payload is in the raw above).
      if (data !== undefined && data !== '') this.ctx.emit(this.file(payload, data, false));
      if (usage !== undefined) this.ctx.emit(usageEvent(tokenUsage(usage), usage));
      this.ctx.emit(doneEvent('end', null));
      return true;
    }
    // An unknown image_* event, or a partial without an image: raw, in the response.
    this.begin();
    this.raw(payload);
    return true;
  }

  private file(payload: JsonObject, data: string, partial: boolean): FileEvent {
    const ev: FileEvent = { type: 'file', index: 0, mimeType: imageMimeType(str(payload['output_format']), data), data };
    if (partial) ev.partial = true;
    return ev;
  }
}

export const openaiImages = defineDialect({
  name: 'openai-images',
  family: 'images',
  // `image_generation.*` / `image_edit.*`: the Responses image tool says `response.image_generation_call.*`, so no other dialect's payloads use these prefixes.
  detect: (payload) => {
    const type = str(payload['type']);
    return type !== undefined && (type.startsWith(IMAGE_GENERATION_PREFIX) || type.startsWith(IMAGE_EDIT_PREFIX));
  },
  createResponse: (ctx) => new ImagesResponse(ctx),
});
