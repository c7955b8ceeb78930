/**
 * The fused stage holding back an SSE event its event hook could take whole
 * but the chunk cuts off (lib/fast/cut-events.ts: the hook answers EVENT_CUT,
 * or EVENT_CUT_CLEAN when it checked for blank lines itself, and the framer
 * stops reading there): at every chunking the hook is offered such events
 * whole, the frames and offsets are those of one chunk, and no event comes
 * out a push later than it does without the hook; held bytes survive a caller
 * that refills its chunk Buffer and the holder's own buffer growing under
 * them, and the auto framer's bytes held before it picks SSE.
 */
import t from 'tap';
import type { Frame } from '../../lib/events.js';
import { CutEvents } from '../../lib/fast/cut-events.js';
import { EVENT_CUT, EVENT_CUT_CLEAN } from '../../lib/fast/event-template.js';
import { makeAutoFramer } from '../../lib/framing/detect.js';
import { resolveFramerOptions } from '../../lib/framing/options.js';
import { makeSseFramer, type SseEventHook } from '../../lib/framing/sse.js';
import { latin1 } from '../../lib/framing/utf8.js';
import type { Stage } from '../../lib/stage.js';
import { chunkings, fixedChunks } from '../helpers/chunks.js';

/** What the hook takes whole: `event: d` + one data line + a blank line, LF only (as an event template would). */
const EVENT = /event: d\ndata: ([^\n\r]*)\n\n/y;

interface Run {
  /** `F<offset>:<event>:<data>` per frame, and per event the hook took (`T` in front then). */
  items: string[];
  /** After each push (and the end): events out so far (frames and events taken whole). */
  dispatched: number[];
  /** Events the hook took whole. */
  taken: number;
}

/** No blank line in text from line start `pos` on: no empty line but the last (which a next chunk may go on). */
function noBlankLine(text: string, pos: number): boolean {
  const lines = text.slice(pos).split(/\r\n|\r|\n/);
  return lines.slice(0, -1).every((line) => line !== '');
}

interface How {
  /** A hook taking events whole, holding back cut ones; else the framer alone. */
  hook?: boolean;
  flush?: boolean;
  /**
   * Every chunk of the first chunk's length is copied into one Buffer and
   * pushed as that same object, the way a reader reusing its buffer does (the
   * hook, like the event templates, forgets its view at every push).
   */
  refill?: boolean;
  /** The hook says EVENT_CUT_CLEAN when it has checked for blank lines itself (as event templates do). */
  clean?: boolean;
  /** The auto framer in front of the SSE framer. */
  auto?: boolean;
}

function frame(run: Run): (f: Frame) => void {
  return (f) => {
    run.items.push(`F${f.at!.offset}:${f.event}:${f.data}`);
    run.dispatched[run.dispatched.length - 1]!++;
  };
}

function split(chunks: Buffer[], how: How = {}): Run {
  const { hook: withHook = false, flush = true, refill = false, clean = false, auto = false } = how;
  const run: Run = { items: [], dispatched: [0], taken: 0 };
  const options = resolveFramerOptions({ positions: true, flushIncomplete: flush, maxFrameBytes: 1 << 20 });
  const cut = new CutEvents(options.maxFrameBytes);
  let last: Uint8Array | null = null;
  let text = '';
  const eventHook: SseEventHook = {
    tryEvent(buf, pos, _limit, _id, _frame, offset) {
      if (buf !== last) {
        last = buf;
        text = latin1(buf, 0, buf.length);
      }
      EVENT.lastIndex = pos;
      const m = EVENT.exec(text);
      if (m !== null) {
        run.items.push(`TF${offset}:d:${m[1]}`);
        run.dispatched[run.dispatched.length - 1]!++;
        run.taken++;
        return EVENT.lastIndex;
      }
      // an event whose end the buffer lacks: text from pos is a prefix of one, or could be
      if (text[pos] !== 'e' || text.indexOf('\n\n', pos) !== -1) return -1;
      return cut.cut(buf, pos, clean && noBlankLine(text, pos) ? EVENT_CUT_CLEAN : EVENT_CUT);
    },
    block: { buf: null, start: 0, dataStart: 0, dataEnd: 0, end: 0 },
  };
  const hooks = withHook ? { eventHook } : {};
  const inner: Stage<Buffer, Frame> = auto ? makeAutoFramer(options, undefined, hooks) : makeSseFramer(options, hooks);
  const framer = withHook ? cut.wrap(inner) : inner;
  const emit = frame(run);
  const shared = refill && chunks.length > 0 ? Buffer.alloc(chunks[0]!.length) : null;
  for (const c of chunks) {
    last = null;
    if (shared !== null && c.length === shared.length) {
      c.copy(shared);
      framer.push(shared, emit);
    } else framer.push(c, emit);
    run.dispatched.push(run.dispatched[run.dispatched.length - 1]!);
  }
  framer.end(emit);
  return run;
}

/** `items` with the events taken whole marked as frames (to compare with the framer alone). */
const asFrames = (items: string[]): string[] => items.map((item) => (item[0] === 'T' ? item.slice(1) : item));

const events = (n: number, data = (i: number): string => `{"i":${i},"t":"${'x'.repeat(i % 40)}"}`): string =>
  Array.from({ length: n }, (_, i) => `event: d\ndata: ${data(i)}\n\n`).join('');

t.test('events cut by chunk ends are offered whole: same items as one chunk, at every chunking', (t) => {
  const inputs: [string, string][] = [
    ['events only', events(12)],
    ['with a comment, a ping and an id line between', events(4) + ': keep-alive\n\nevent: ping\ndata: {}\n\n' + 'id: 7\nevent: d\ndata: {"a":1}\n\n' + events(4)],
    ['CRLF events (never taken: their lines are read as they are)', events(6).replace(/\n/g, '\r\n')],
    ['CR-only line ends', events(3).replace(/\n/g, '\r') + events(3)],
    ['an unterminated last event', events(5) + 'event: d\ndata: {"last":true}'],
    ['blank lines of other line ends after cut events', events(3) + 'event: d\ndata: {"a":1}\r\n\r\n' + events(2) + 'event: d\ndata: {"b":2}\n\r\n' + 'event: d\r\r' + events(2)],
    ['blank lines first (the auto framer holds them)', '\n\n\n' + events(8)],
  ];
  for (const auto of [false, true]) {
    for (const clean of [false, true]) {
      const how = `${clean ? ' (hook checks for blank lines: EVENT_CUT_CLEAN)' : ''}${auto ? ' (auto framer)' : ''}`;
      for (const [name, text] of inputs) {
        const input = Buffer.from(text);
        const whole = split([input], { hook: true, clean, auto });
        let differs: string | null = null;
        let frames: string | null = null;
        let later: string | null = null;
        for (const { name: chunking, chunks } of chunkings(input)) {
          const held = split(chunks, { hook: true, clean, auto });
          const plain = split(chunks, { auto });
          // (the auto framer's own copies of the bytes before its pick are never held: there only the frames are the same)
          const same = auto ? asFrames : (items: string[]): string[] => items;
          if (differs === null && JSON.stringify(same(held.items)) !== JSON.stringify(same(whole.items))) differs = chunking;
          if (frames === null && JSON.stringify(asFrames(held.items)) !== JSON.stringify(plain.items)) frames = chunking;
          if (later === null && JSON.stringify(held.dispatched) !== JSON.stringify(plain.dispatched)) later = chunking;
        }
        t.equal(differs, null, `${name}${how}: the frames of one chunk at every chunking`);
        t.equal(frames, null, `${name}${how}: the frames and offsets of the framer without the hook`);
        t.equal(later, null, `${name}${how}: after every push as many events out as without the hook`);
      }
    }
  }
  t.end();
});

t.test('events are really taken whole across chunk ends, held over several chunks when need be', (t) => {
  const input = Buffer.from(events(50));
  for (const size of [1, 7, 50, 100, 1536]) {
    t.equal(split(fixedChunks(input, size), { hook: true }).taken, 50, `${size}-byte chunks: all 50 events taken whole`);
    t.equal(split(fixedChunks(input, size), { hook: true, clean: true }).taken, 50, `${size}-byte chunks, EVENT_CUT_CLEAN: all 50 taken whole`);
    // (the event the first chunk cuts is in the auto framer's copy of it: read by lines)
    t.equal(split(fixedChunks(input, size), { hook: true, auto: true }).taken, 49, `${size}-byte chunks, auto framer: all 49 after the first chunk's taken whole`);
  }
  t.end();
});

t.test('what cannot be held is read line by line', (t) => {
  // an event longer than the 4 KiB hold limit and a chunk together
  const big = Buffer.from(events(2) + `event: d\ndata: ${'y'.repeat(20000)}\n\n` + events(2));
  const whole = split([big], { hook: true });
  t.equal(whole.taken, 5, 'one chunk: all five taken');
  const chunked = split(fixedChunks(big, 1024), { hook: true });
  t.equal(JSON.stringify(asFrames(chunked.items)), JSON.stringify(split(fixedChunks(big, 1024)).items), 'same frames as without the hook');
  t.ok(chunked.taken < 5, `the 20,000-byte event read by lines (${chunked.taken} taken)`);
  // a chunk over 64 KiB after held bytes: only its head is joined to them
  const long = Buffer.from(events(3000));
  const cut = long.indexOf('data', 1000);
  const two = split([long.subarray(0, cut), long.subarray(cut)], { hook: true });
  t.equal(two.taken, 3000, 'a 64 KiB+ chunk after a cut: every event taken');
  t.equal(JSON.stringify(two.items), JSON.stringify(split([long], { hook: true }).items), 'same items as one chunk');
  // end of input with an event held: read as it is, flushed or not
  const open = Buffer.from(events(2) + 'event: d\ndata: {"open":1}');
  for (const flush of [true, false]) {
    const parts = [open.subarray(0, open.length - 5), open.subarray(open.length - 5)];
    t.equal(JSON.stringify(asFrames(split(parts, { hook: true, flush }).items)), JSON.stringify(split(parts, { flush }).items), `held at the end, flush ${flush}`);
  }
  t.end();
});

t.test('held bytes survive a caller that refills its chunk Buffer, and chunks of every size after them', (t) => {
  const input = Buffer.from(events(400, (i) => `{"i":${i},"t":"${'é'.repeat(i % 90)}"}`));
  const whole = split([input], { hook: true });
  for (const size of [7, 50, 333, 1536]) {
    const run = split(fixedChunks(input, size), { hook: true, refill: true });
    t.equal(JSON.stringify(run.items), JSON.stringify(whole.items), `${size}-byte chunks through one refilled Buffer: the items of one chunk`);
    t.equal(run.taken, 400, `${size}-byte chunks through one refilled Buffer: every event taken whole`);
  }
  // small and large chunks in turn: the held bytes are kept while the buffer they sit in grows
  const long = Buffer.from(events(3000));
  const sizes = [37, 5000, 61000, 90, 65536, 3, 70000, 1500];
  const chunks: Buffer[] = [];
  for (let at = 0, k = 0; at < long.length; k++) {
    const end = Math.min(long.length, at + sizes[k % sizes.length]!);
    chunks.push(long.subarray(at, end));
    at = end;
  }
  const mixed = split(chunks, { hook: true });
  t.equal(JSON.stringify(mixed.items), JSON.stringify(split([long], { hook: true }).items), 'chunks of 3 B to 70,000 B: the items of one chunk');
  t.equal(mixed.taken, 3000, 'chunks of 3 B to 70,000 B: every event taken whole');
  t.end();
});
