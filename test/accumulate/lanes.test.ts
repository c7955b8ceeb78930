/** lib/accumulate/lanes.ts on hand-made laned events: serializeLanes and the final accumulator's lanes. */
import t from 'tap';
import type { UnifiedEvent } from '../../lib/events.js';
import { serializeLanes } from '../../lib/accumulate/lanes.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import { runStage } from '../../lib/stage.js';

const start = (id: string, streamId?: string): UnifiedEvent => ({ type: 'start', id, model: 'm', ...(streamId === undefined ? {} : { streamId }) });
const text = (s: string, streamId?: string): UnifiedEvent => ({ type: 'text_delta', index: 0, text: s, ...(streamId === undefined ? {} : { streamId }) });
const done = (streamId?: string): UnifiedEvent => ({ type: 'done', stopReason: 'end', providerReason: null, ...(streamId === undefined ? {} : { streamId }) });
const steer = (streamId: string): UnifiedEvent => ({ type: 'steer', kind: 'steer', status: 'pending', id: 's1', responseId: 'r', raw: {}, streamId });
const show = (events: UnifiedEvent[]): string[] => events.map((e) => `${e.streamId ?? '-'}:${e.type === 'text_delta' ? e.text : e.type}`);

t.test('serializeLanes: each lane whole at its done; an unlaned response is never split', (tt) => {
  const events = [
    start('a', 'A'),
    start('u'), // an unlaned response opens while lane A is open
    text('1', 'A'),
    text('x'),
    done('A'), // A is done, but the unlaned response is open: A waits
    steer('B'), // a lane event outside any response: waits too (it would land inside the unlaned response)
    text('y'),
    done(),
    start('b', 'B'),
    text('2', 'B'),
  ];
  tt.same(show(runStage(serializeLanes(), events)), [
    '-:start', '-:x', '-:y', '-:done',
    'A:start', 'A:1', 'A:done',
    'B:steer',
    // lane B never got its done: passed on at the end, as it was
    'B:start', 'B:2',
  ]);
  tt.end();
});

t.test('serializeLanes: unlaned events pass at once, lanes in order of completion', (tt) => {
  const events = [start('a', 'A'), start('b', 'B'), text('a', 'A'), text('b', 'B'), done('B'), done('A'), start('u'), done()];
  tt.same(show(runStage(serializeLanes(), events)), ['B:start', 'B:b', 'B:done', 'A:start', 'A:a', 'A:done', '-:start', '-:done']);
  tt.end();
});

t.test('the final accumulator: one final per lane at its done, a reused lane key a fresh final, unlaned responses unaffected', (tt) => {
  const events = [
    start('a1', 'A'),
    start('u'),
    text('Al', 'A'),
    text('Un'),
    start('b', 'B'),
    text('Be', 'B'),
    done('A'),
    start('a2', 'A'), // lane A reused
    text('Again', 'A'),
    done(),
    done('A'),
    text('ta', 'B'), // lane B cut off by the end
  ];
  const finals = runStage(createFinalAccumulator(), events);
  tt.same(
    finals.map((f) => [f.streamId, f.id, f.text, f.stopReason, f.errors.map((e) => e.code)]),
    [
      ['A', 'a1', 'Al', 'end', []],
      [undefined, 'u', 'Un', 'end', []],
      ['A', 'a2', 'Again', 'end', []],
      ['B', 'b', 'Beta', 'error', ['incomplete_stream']],
    ],
  );
  tt.end();
});
