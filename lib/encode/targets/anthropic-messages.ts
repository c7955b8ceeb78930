/**
 * Unified events → Anthropic Messages SSE (message_start, content blocks
 * opened, indexed and always closed, message_delta with the final usage,
 * message_stop).
 *
 * - Usage: message_start carries what is known at that point (usually
 *   nothing: zeros); message_delta carries the whole-message totals, which the
 *   SDKs apply over message_start's (input, cache read, output). Unified
 *   `inputTokens` includes cached tokens; Anthropic's `input_tokens` does not,
 *   so the cached ones move to `cache_read_input_tokens`.
 * - Blocks: a text or thinking block is closed when another block starts (a
 *   later delta of it opens a new block); a tool_use block stays open until
 *   its `tool_call_done`, so parallel calls whose deltas interleave keep their
 *   own indices.
 * - Signatures (`signature_delta`, `redacted_thinking`) and citations are
 *   carried only from the Anthropic family; others are reported lost.
 * - Refusal text is written as text (stop_reason `refusal`).
 */
import { assertNever, type JsonObject, type StopReason, type UnifiedEvent, type UsageEvent } from '../../events.js';
import { defineTarget, sseEvent, type TargetContext, type TargetResponse } from '../target.js';
import { loseNotice, loseOtherChoices } from '../notices.js';

const FAMILY = ['anthropic-messages', 'xai-messages'] as const;

const STOP_REASONS: Record<StopReason, string | null> = {
  end: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  refusal: 'refusal',
  error: null,
  other: null,
};

/** Anthropic's own stop reasons, kept as they came from the family. */
const NATIVE_REASONS = new Set(['end_turn', 'stop_sequence', 'max_tokens', 'tool_use', 'refusal', 'pause_turn', 'model_context_window_exceeded']);

interface Block {
  index: number;
  kind: 'text' | 'thinking' | 'tool';
  open: boolean;
  /** Tool blocks: the argument text written so far. */
  written: string;
  /** Tool blocks: free-form input (not JSON: an OpenAI custom tool), held until done and wrapped. */
  freeform: string | null;
}

function isJsonObject(text: string): boolean {
  if (!/^\s*\{/.test(text)) return text.trim() === '';
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function anthropicUsage(u: UsageEvent | null, sameFamily: boolean): JsonObject {
  if (u === null) return { input_tokens: 0, output_tokens: 0 };
  const raw = u.raw;
  if (sameFamily && typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const out: JsonObject = {};
    for (const k of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens', 'server_tool_use', 'output_tokens_details']) {
      const v = raw[k];
      if (v !== undefined && v !== null) out[k] = v;
    }
    if (out['output_tokens'] === undefined) out['output_tokens'] = u.outputTokens ?? 0;
    return out;
  }
  const out: JsonObject = { output_tokens: u.outputTokens ?? 0 };
  if (u.inputTokens !== null) out['input_tokens'] = u.inputTokens - (u.cachedInputTokens ?? 0);
  if (u.cachedInputTokens !== null) out['cache_read_input_tokens'] = u.cachedInputTokens;
  if (u.reasoningTokens !== null) out['output_tokens_details'] = { thinking_tokens: u.reasoningTokens };
  return out;
}

/**
 * One response being written. A class, not a closure per step: a log of short responses makes one
 * a response, and a closure each of its steps per response costs an allocation each (and, where the
 * code runs through a transform that keeps function names, as tsx does, a defineProperty each).
 */
class MessagesResponse implements TargetResponse {
  private id: string | null = null;
  private model: string | null = null;
  private sameFamily = false;
  private started = false;
  private usage: UsageEvent | null = null;
  private errorWritten = false;
  private nextIndex = 0;
  /** Unified block key → its current Anthropic block. */
  private readonly blocks = new Map<string, Block>();
  /** The open text or thinking block (at most one). */
  private flowing: Block | null = null;
  private readonly openTools: Block[] = [];


  constructor(private readonly ctx: TargetContext) {}

  private begin(): void {
    if (this.started) return;
    this.started = true;
    const message: JsonObject = {
      id: this.id === null || this.id === '' ? 'msg_wirefold' : this.id,
      type: 'message',
      role: 'assistant',
      model: this.model ?? 'unknown',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    this.ctx.write(sseEvent('message_start', { type: 'message_start', message }));
  }

  private close(block: Block): void {
    if (!block.open) return;
    block.open = false;
    this.ctx.write(sseEvent('content_block_stop', { type: 'content_block_stop', index: block.index }));
  }

  private closeFlowing(): void {
    if (this.flowing !== null) this.close(this.flowing);
    this.flowing = null;
  }

  /** The open block for a text or thinking key, opening a new one (and closing the other) when needed. */
  private flowBlock(key: string, kind: 'text' | 'thinking'): Block {
    this.begin();
    const current = this.blocks.get(key);
    if (current !== undefined && current.open) return current;
    this.closeFlowing();
    const block: Block = { index: this.nextIndex++, kind, open: true, written: '', freeform: null };
    this.blocks.set(key, block);
    this.flowing = block;
    const content = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
    this.ctx.write(sseEvent('content_block_start', { type: 'content_block_start', index: block.index, content_block: content }));
    return block;
  }

  private deltaChunk(block: Block, delta: JsonObject): void {
    this.ctx.write(sseEvent('content_block_delta', { type: 'content_block_delta', index: block.index, delta }));
  }

  /**
   * A delta carrying one string (text, thinking, partial_json): the bulk of every stream, written
   * around the string's JSON alone; the same bytes as `delta`.
   */
  private stringDelta(block: Block, type: string, key: string, value: string): void {
    this.ctx.writeText(`event: content_block_delta\ndata: {"type":"content_block_delta","index":${block.index},"delta":{"type":"${type}","${key}":"`, value, '"}}\n\n');
  }

  private toolBlock(id: string, name: string, providerExecuted: boolean): Block {
    this.begin();
    const key = `tool:${id}`;
    const current = this.blocks.get(key);
    if (current !== undefined && current.open) return current;
    this.closeFlowing();
    const block: Block = { index: this.nextIndex++, kind: 'tool', open: true, written: '', freeform: null };
    this.blocks.set(key, block);
    this.openTools.push(block);
    const type = providerExecuted ? 'server_tool_use' : 'tool_use';
    this.ctx.write(sseEvent('content_block_start', { type: 'content_block_start', index: block.index, content_block: { type, id, name, input: {} } }));
    return block;
  }

  private argsDelta(block: Block, text: string): void {
    block.written += text;
    this.stringDelta(block, 'input_json_delta', 'partial_json', text);
  }

  private closeAll(): void {
    this.closeFlowing();
    for (const b of this.openTools) this.close(b);
    this.openTools.length = 0;
  }

  private writeError(code: string, message: string): void {
    this.begin();
    this.closeAll();
    this.errorWritten = true;
    this.ctx.write(sseEvent('error', { type: 'error', error: { type: code, message } }));
  }

  private finish(stopReason: StopReason, providerReason: string | null): void {
    this.begin();
    this.closeAll();
    if (stopReason === 'error') {
      if (!this.errorWritten) this.writeError('api_error', `the response ended with an error${providerReason === null ? '' : ` (${providerReason})`}`);
      this.ctx.lose('usage', this.usage === null ? 'no usage was reported: message_start says 0 tokens' : 'the usage of a failed response (an error event has no place for it)');
      return;
    }
    // the wire has numbers only: an unknown usage becomes zeros, and the report says so
    if (this.usage === null) this.ctx.lose('usage', 'no usage was reported: written as 0 tokens');
    let reason = STOP_REASONS[stopReason];
    if (this.sameFamily && providerReason !== null && NATIVE_REASONS.has(providerReason)) reason = providerReason;
    if (reason === null) {
      this.ctx.lose('stop_reason', `${stopReason}${providerReason === null ? '' : ` (${providerReason})`} written as end_turn`);
      reason = 'end_turn';
    }
    this.ctx.write(
      sseEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: reason, stop_sequence: null },
        usage: anthropicUsage(this.usage, this.sameFamily),
      }),
    );
    this.ctx.write(sseEvent('message_stop', { type: 'message_stop' }));
  }

  push(ev: UnifiedEvent): void {
    if (ev.choice !== undefined && ev.choice !== 0 && ev.type !== 'done') {
      this.ctx.lose('choice', `events of choice ${ev.choice} (the Messages wire has one choice)`);
      return;
    }
    switch (ev.type) {
      case 'start':
        this.id = ev.id;
        this.model = ev.model;
        this.sameFamily = ev.dialect !== undefined && (FAMILY as readonly string[]).includes(ev.dialect);
        this.begin();
        return;
      case 'text_delta':
        this.stringDelta(this.flowBlock(`text:${ev.index}`, 'text'), 'text_delta', 'text', ev.text);
        return;
      case 'reasoning_delta':
        this.stringDelta(this.flowBlock(`thinking:${ev.index}`, 'thinking'), 'thinking_delta', 'thinking', ev.text);
        return;
      case 'signature':
        if (!this.sameFamily || ev.kind === 'thought_signature' || ev.kind === 'encrypted_content') {
          this.ctx.lose('signature', `a ${ev.kind} from another provider family`);
        } else if (ev.kind === 'redacted_thinking') {
          this.begin();
          this.closeFlowing();
          const index = this.nextIndex++;
          this.ctx.write(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: ev.signature } }));
          this.ctx.write(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
        } else {
          // the signature closes its thinking block (omitted thinking: a block with no text)
          const block = this.flowBlock(`thinking:${ev.index}`, 'thinking');
          this.deltaChunk(block, { type: 'signature_delta', signature: ev.signature });
          this.closeFlowing();
        }
        return;
      case 'tool_call_start':
        if (ev.providerExecuted === true && !this.sameFamily) this.ctx.lose('provider_tool_call', `${ev.name} (run by the source provider)`);
        else this.toolBlock(ev.id, ev.name, ev.providerExecuted === true);
        return;
      case 'tool_call_delta': {
        if (ev.providerExecuted === true && !this.sameFamily) return; // counted at its start
        if (ev.argumentsDelta.length === 0) return;
        const block = this.toolBlock(ev.id, '', ev.providerExecuted === true);
        // input_json_delta must build a JSON object: free-form input (it does not start as one) waits for its done
        if (block.freeform === null && block.written === '' && !/^\s*\{/.test(ev.argumentsDelta)) block.freeform = '';
        if (block.freeform !== null) block.freeform += ev.argumentsDelta;
        else this.argsDelta(block, ev.argumentsDelta);
        return;
      }
      case 'tool_call_done': {
        if (ev.providerExecuted === true && !this.sameFamily) return;
        const block = this.toolBlock(ev.id, ev.name, ev.providerExecuted === true);
        if (block.freeform !== null || (block.written === '' && !isJsonObject(ev.arguments))) {
          if (ev.arguments.trim() !== '') {
            this.ctx.lose('tool_input', `free-form input of ${ev.name} written as {"input": …}`);
            this.argsDelta(block, JSON.stringify({ input: ev.arguments }));
          }
          this.close(block);
          return;
        }
        // the authoritative arguments: what the deltas did not already say
        if (ev.arguments.startsWith(block.written)) {
          const rest = ev.arguments.slice(block.written.length);
          if (rest.length > 0) this.argsDelta(block, rest);
        }
        this.close(block);
        return;
      }
      case 'tool_result':
        this.ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name}`);
        return;
      case 'citation': {
        const block = this.blocks.get(`text:${ev.index}`);
        if (this.sameFamily && block !== undefined && block.open) this.deltaChunk(block, { type: 'citations_delta', citation: ev.raw });
        else this.ctx.lose('citation', ev.url ?? ev.source ?? ev.title ?? 'a citation');
        return;
      }
      case 'file':
        if (ev.partial !== true) this.ctx.lose('file', `a ${ev.mimeType ?? 'file'} of ${ev.data.length} base64 characters`);
        return;
      case 'audio_delta':
        this.ctx.lose('audio', `${ev.mimeType ?? 'audio'} deltas`);
        return;
      case 'usage':
        this.usage = ev;
        return;
      case 'error':
        if (ev.terminal) this.writeError(ev.code, ev.message);
        else this.ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done':
        if (!loseOtherChoices(ev, this.ctx)) this.finish(ev.stopReason, ev.providerReason);
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

  readonly rawDeltas = 'all';

  abort(): void {
    if (!this.errorWritten) this.writeError('api_error', 'the source stream ended before the response was done');
    if (this.usage !== null) this.ctx.lose('usage', 'the usage of a response cut short (an error event has no place for it)');
  }
}

function createResponse(ctx: TargetContext): TargetResponse {
  return new MessagesResponse(ctx);
}

export const anthropicMessagesTarget = defineTarget({
  name: 'anthropic-messages',
  contentType: 'text/event-stream',
  family: FAMILY,
  passThrough: { dialects: FAMILY, framing: 'sse' },
  createResponse,
  writeError(ev, ctx) {
    ctx.write(sseEvent('error', { type: 'error', error: { type: ev.code, message: ev.message } }));
  },
});
