/**
 * The lane router of the Responses dialects (OpenAI's and xAI's WebSocket
 * mode, and SSE logs a proxy interleaved): several responses share one
 * socket, each server event names its lane with `stream_id` (present when the
 * `response.create` that started the response gave one; up to 32 lanes on a
 * connection). Events without it take the unlaned path: without
 * multiplexing the server runs one response at a time on a socket, so they
 * come one after another; in a two-way capture that shows responses
 * overlapping anyway, responses-by-id.ts lanes them by response id. The multi-agent beta's `agent` tag is stamped on
 * the events of the payload that carries it.
 *
 * A capture's client messages are remembered so that the server's answers
 * can name what was sent: `response.steer {previous_response_id, input}` is
 * answered by `response.steer.accepted|pending|failed {steer: {id,
 * previous_response_id}}`, `response.inject {response_id, input}` by
 * `response.inject.created|failed {response_id}` (in the order sent, per
 * response).
 */
import type { Json, JsonObject } from '../events.js';
import { obj, str } from './helpers.js';
import type { LaneRoute, LaneRouter } from './types.js';
import { ResponsesById } from './responses-by-id.js';

/** The `agent` tag: a name, or an object naming one (`name`, else `id`). */
function agentOf(tag: Json | undefined): string | undefined {
  if (typeof tag === 'string') return tag;
  const o = obj(tag);
  return str(o?.['name']) ?? str(o?.['id']);
}

/** A capture's client message: the record's `data`, parsed unless it was already (`captures: 'all'`). */
function clientMessage(record: JsonObject): JsonObject | undefined {
  const data = record['data'];
  if (typeof data !== 'string') return obj(data);
  try {
    return obj(JSON.parse(data) as Json);
  } catch {
    return undefined; // not JSON: the record stays raw, unlaned
  }
}

export function responsesLanes(): LaneRouter {
  /** Client messages not answered yet, per response id: steers and injects. */
  const steers = new Map<string, JsonObject[]>();
  const injects = new Map<string, JsonObject[]>();
  /** Steers already answered once (accepted, then pending or failed later), by steer id. */
  const bySteerId = new Map<string, JsonObject>();
  /** Set at the first client message: the input is a two-way capture, where responses without stream_id are laned by id when they overlap. */
  let byId: ResponsesById | null = null;

  function queue(map: Map<string, JsonObject[]>, key: string | undefined, message: JsonObject): void {
    if (key === undefined) return;
    const list = map.get(key);
    if (list === undefined) map.set(key, [message]);
    else list.push(message);
  }

  function take(map: Map<string, JsonObject[]>, key: string | undefined): JsonObject | undefined {
    if (key === undefined) return undefined;
    const list = map.get(key);
    const message = list?.shift();
    if (list !== undefined && list.length === 0) map.delete(key);
    return message;
  }

  return {
    route(record, send) {
      const payload = send ? clientMessage(record) : record;
      if (payload === undefined) return null;
      if (send) {
        byId ??= new ResponsesById();
        const type = payload['type'];
        if (type === 'response.steer') queue(steers, str(payload['previous_response_id']), payload);
        else if (type === 'response.inject') queue(injects, str(payload['response_id']), payload);
      }
      let lane = payload['stream_id'];
      if (typeof lane !== 'string' && byId !== null && !send) lane = byId.lane(payload) ?? undefined;
      const tag = payload['agent'];
      if (typeof lane !== 'string' && tag === undefined) return null;
      const route: LaneRoute = {};
      if (typeof lane === 'string') route.lane = lane;
      const agent = agentOf(tag);
      if (agent !== undefined) route.agent = agent;
      return route;
    },
    sent(payload) {
      const type = str(payload['type']) ?? '';
      if (type.startsWith('response.inject.')) return take(injects, str(payload['response_id']));
      const steer = obj(payload['steer']);
      const id = str(steer?.['id']);
      const known = id === undefined ? undefined : bySteerId.get(id);
      if (known !== undefined) return known;
      const message = take(steers, str(steer?.['previous_response_id']));
      if (message !== undefined && id !== undefined) bySteerId.set(id, message);
      return message;
    },
  };
}
