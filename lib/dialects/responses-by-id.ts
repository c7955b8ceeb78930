/**
 * Lanes by response id, for the Responses events of a two-way WebSocket
 * capture that carry no `stream_id` (see responses-lanes.ts). Without
 * multiplexing the server runs one response at a time, so this only matters
 * when a capture shows otherwise (a proxy that dropped `stream_id`, a log of
 * several sockets merged): a response that begins while another is still open
 * gets a lane named by its response id; a response that begins alone stays
 * on the ordinary path. An event belongs to the response its lifecycle
 * snapshot (`response.id`), its `response_id`, its steer's
 * `previous_response_id`, or its item (`item_id`, `item.id`: the item → response
 * map) names; a new item goes to the open response whose next
 * `sequence_number` it carries (each response numbers its events from 0),
 * else to the response created last. Outside a capture (SSE, NDJSON of server
 * events) a new response while one is open means the old one was cut off, as
 * always: nothing here applies.
 */
import type { JsonObject } from '../events.js';
import { num, obj, str } from './helpers.js';

interface Open {
  /** Its lane (its id), or null: it began alone, on the ordinary path. */
  lane: string | null;
  /** The sequence_number its next event should carry. */
  next: number | undefined;
}

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'response.cancelled']);

export class ResponsesById {
  private readonly open = new Map<string, Open>();
  private readonly items = new Map<string, string>();
  /** The response created last among the open ones. */
  private last: string | undefined;

  /** The lane of a server payload without stream_id: a response id, or null for the ordinary path. */
  lane(p: JsonObject): string | null {
    const type = str(p['type']) ?? '';
    const snapshot = type.startsWith('response.') ? str(obj(p['response'])?.['id']) : undefined;
    if (snapshot !== undefined && !this.open.has(snapshot)) {
      if (type === 'response.created' || type === 'response.in_progress' || type === 'response.queued') {
        this.open.set(snapshot, { lane: this.open.size > 0 ? snapshot : null, next: undefined });
        this.last = snapshot;
      }
    }
    if (this.open.size === 0) return null;
    const id = snapshot ?? this.owner(p);
    const response = id === undefined ? undefined : this.open.get(id);
    if (response === undefined) return null;
    const seq = num(p['sequence_number']);
    if (seq !== undefined) response.next = seq + 1;
    if (TERMINAL.has(type)) this.close(id!);
    return response.lane;
  }

  /** The open response an event without a snapshot belongs to. */
  private owner(p: JsonObject): string | undefined {
    const named = str(p['response_id']) ?? str(obj(p['steer'])?.['previous_response_id']);
    if (named !== undefined) return named;
    const itemId = str(p['item_id']) ?? str(obj(p['item'])?.['id']);
    const known = itemId === undefined ? undefined : this.items.get(itemId);
    if (known !== undefined) return known;
    const seq = num(p['sequence_number']);
    let owner: string | undefined;
    if (seq !== undefined) {
      for (const [id, r] of this.open) {
        if (r.next !== seq) continue;
        if (owner !== undefined) {
          owner = undefined; // two responses expect it: no telling
          break;
        }
        owner = id;
      }
    }
    owner ??= this.last;
    if (itemId !== undefined && owner !== undefined) this.items.set(itemId, owner);
    return owner;
  }

  private close(id: string): void {
    this.open.delete(id);
    for (const [item, owner] of this.items) if (owner === id) this.items.delete(item);
    if (this.last === id) this.last = [...this.open.keys()].pop();
  }
}
