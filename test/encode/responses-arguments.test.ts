/**
 * The openai-responses target writes a call's arguments at done (the done event, the item, the
 * terminal response) from the JSON characters its deltas were written with, not escaping the whole
 * text again: that must be JSON.stringify of the authoritative text, also when a delta splits a
 * surrogate pair (a lone surrogate is escaped in its delta, a pair is not in the whole), when the
 * authoritative text is not what streamed, and for text with every kind of escape.
 */
import t from 'tap';
import type { UnifiedEvent } from '../../lib/events.js';
import { encode } from '../helpers/encode.js';

function call(deltas: string[], args: string): string {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r', model: 'm', dialect: 'openai-chat' },
    { type: 'tool_call_start', index: 0, id: 'c1', name: 'f' },
    ...deltas.map((argumentsDelta): UnifiedEvent => ({ type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta })),
    { type: 'tool_call_done', index: 0, id: 'c1', name: 'f', arguments: args },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ];
  return encode(events, 'openai-responses').text;
}

/** The data lines of the events of `type`. */
function lines(text: string, type: string): string[] {
  return text
    .split('\n\n')
    .filter((b) => b.startsWith(`event: ${type}\n`))
    .map((b) => b.slice(b.indexOf('\ndata: ') + 7));
}

const cases: [string, string[], string][] = [
  ['a surrogate pair split by two deltas', ['{"s":"a\ud83d', '\ude00 b"}'], '{"s":"a\ud83d\ude00 b"}'],
  ['a lone surrogate', ['{"s":"\ud83d', '"}'], '{"s":"\ud83d"}'],
  ['the authoritative text is not what streamed', ['{"a":', '1'], '{"b":2}'],
  ['the authoritative text goes on from what streamed', ['{"a":'], '{"a":1}'],
  ['quotes, backslashes and control characters', ['{"t":"say \\"hi\\"', '\n\t\u0001\u007f/', '"}'], '{"t":"say \\"hi\\"\n\t\u0001\u007f/"}'],
];

for (const [name, deltas, args] of cases) {
  t.test(name, async (t) => {
    const text = call(deltas, args);
    const json = JSON.stringify(args);
    const [done] = lines(text, 'response.function_call_arguments.done');
    t.ok(done?.endsWith(`,"arguments":${json}}`), 'the done event holds the arguments as JSON.stringify writes them');
    const [item] = lines(text, 'response.output_item.done');
    t.match(item, `"arguments":${json},"call_id"`, 'so does the item');
    const [terminal] = lines(text, 'response.completed');
    t.match(terminal, `"arguments":${json},"call_id"`, 'and the terminal response');
    t.equal((JSON.parse(done!) as { arguments: string }).arguments, args);
  });
}
