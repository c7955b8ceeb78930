/**
 * The line splitter holding back an event its line-start hook could take
 * whole but the chunk cuts off (lib/framing/lines.ts, EVENT_CUT, and
 * EVENT_CUT_CLEAN when the hook checked for blank lines itself): at every
 * chunking the hook is offered such events whole, what comes out is what one
 * chunk gives, line offsets are unchanged, and no event comes out a push
 * later than it does without the hook; held bytes survive a caller that
 * refills its chunk Buffer and the splitter's own buffer growing under them.
 */
import t from 'tap';
import { createLineSplitter, EVENT_CUT, EVENT_CUT_CLEAN } from '../../lib/framing/lines.js';
import { latin1 } from '../../lib/framing/utf8.js';
import { chunkings, fixedChunks } from '../helpers/chunks.js';

/** What the hook takes whole: `event: d` + one data line + a blank line, LF only (as an event template would). */
const EVENT = /event: d\ndata: [^\n\r]*\n\n/y;

interface Run {
  /** `E<offset>:<bytes>` for an event the hook took, `L<offset>:<line>` for a line. */
  items: string[];
  /** After each push (and the end): events dispatched so far (blank lines and events taken whole). */
  dispatched: number[];
  /** Events the hook took whole. */
  taken: number;
}

/**
 * `refill`: every chunk of the first chunk's length is copied into one Buffer
 * and pushed as that same object, the way a reader reusing its buffer does
 * (the hook, like the event templates, forgets its view at every push).
 */
/** No blank line in text from line start `pos` on: no empty line but the last (which a next chunk may go on). */
function noBlankLine(text: string, pos: number): boolean {
  const lines = text.slice(pos).split(/\r\n|\r|\n/);
  return lines.slice(0, -1).every((line) => line !== '');
}

/** `clean`: the hook says EVENT_CUT_CLEAN when it has checked for blank lines itself (as event templates do). */
function split(chunks: Buffer[], withHook: boolean, flush = true, refill = false, clean = false): Run {
  const items: string[] = [];
  const dispatched: number[] = [];
  let done = 0;
  let taken = 0;
  let last: Uint8Array | null = null;
  let text = '';
  const hook = (buf: Uint8Array, pos: number, offset: number): number => {
    if (buf !== last) {
      last = buf;
      text = latin1(buf, 0, buf.length);
    }
    EVENT.lastIndex = pos;
    if (EVENT.exec(text) !== null) {
      items.push(`E${offset}:${text.slice(pos, EVENT.lastIndex)}`);
      done++;
      taken++;
      return EVENT.lastIndex;
    }
    // an event whose end the buffer lacks: text from pos is a prefix of one, or could be
    if (text[pos] !== 'e' || text.indexOf('\n\n', pos) !== -1) return -1;
    return clean && noBlankLine(text, pos) ? EVENT_CUT_CLEAN : EVENT_CUT;
  };
  const lines = createLineSplitter(
    1 << 20,
    (buf, start, end, offset) => {
      if (start === end) done++;
      items.push(`L${offset}:${latin1(buf, start, end)}`);
    },
    () => 0,
    withHook ? hook : undefined,
  );
  const shared = refill && chunks.length > 0 ? Buffer.alloc(chunks[0]!.length) : null;
  for (const c of chunks) {
    last = null;
    if (shared !== null && c.length === shared.length) {
      c.copy(shared);
      lines.push(shared);
    } else lines.push(c);
    dispatched.push(done);
  }
  lines.end(flush);
  dispatched.push(done);
  return { items, dispatched, taken };
}

/** Lines of `items` with events taken whole spelled out as their lines (to compare with the hookless splitter). */
function asLines(items: string[]): string[] {
  return items.flatMap((item) => {
    if (item[0] === 'L') return [item];
    const at = Number(item.slice(1, item.indexOf(':')));
    const body = item.slice(item.indexOf(':') + 1);
    const out: string[] = [];
    let offset = at;
    for (const line of body.slice(0, -1).split('\n')) {
      out.push(`L${offset}:${line}`);
      offset += line.length + 1;
    }
    return out;
  });
}

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
  ];
  for (const clean of [false, true]) {
    const hook = clean ? ' (hook checks for blank lines: EVENT_CUT_CLEAN)' : '';
    for (const [name, text] of inputs) {
      const input = Buffer.from(text);
      const whole = split([input], true, true, false, clean);
      let differs: string | null = null;
      let lines: string | null = null;
      let later: string | null = null;
      for (const { name: chunking, chunks } of chunkings(input)) {
        const held = split(chunks, true, true, false, clean);
        const plain = split(chunks, false);
        if (differs === null && JSON.stringify(held.items) !== JSON.stringify(whole.items)) differs = chunking;
        if (lines === null && JSON.stringify(asLines(held.items)) !== JSON.stringify(plain.items)) lines = chunking;
        if (later === null && JSON.stringify(held.dispatched) !== JSON.stringify(plain.dispatched)) later = chunking;
      }
      t.equal(differs, null, `${name}${hook}: the items of one chunk at every chunking`);
      t.equal(lines, null, `${name}${hook}: the lines and offsets of the splitter without the hook`);
      t.equal(later, null, `${name}${hook}: after every push as many events out as without the hook`);
    }
  }
  t.end();
});

t.test('events are really taken whole across chunk ends, held over several chunks when need be', (t) => {
  const input = Buffer.from(events(50));
  for (const size of [1, 7, 50, 100, 1536]) {
    t.equal(split(fixedChunks(input, size), true).taken, 50, `${size}-byte chunks: all 50 events taken whole`);
    t.equal(split(fixedChunks(input, size), true, true, false, true).taken, 50, `${size}-byte chunks, EVENT_CUT_CLEAN: all 50 taken whole`);
  }
  t.end();
});

t.test('what cannot be held is read line by line', (t) => {
  // an event longer than the 4 KiB hold limit and a chunk together
  const big = Buffer.from(events(2) + `event: d\ndata: ${'y'.repeat(20000)}\n\n` + events(2));
  const whole = split([big], true);
  t.equal(whole.taken, 5, 'one chunk: all five taken');
  const chunked = split(fixedChunks(big, 1024), true);
  t.equal(JSON.stringify(asLines(chunked.items)), JSON.stringify(split(fixedChunks(big, 1024), false).items), 'same lines as without the hook');
  t.ok(chunked.taken < 5, `the 20,000-byte event read by lines (${chunked.taken} taken)`);
  // a chunk over 64 KiB after held bytes: only its head is joined to them
  const long = Buffer.from(events(3000));
  const cut = long.indexOf('data', 1000);
  const two = split([long.subarray(0, cut), long.subarray(cut)], true);
  t.equal(two.taken, 3000, 'a 64 KiB+ chunk after a cut: every event taken');
  t.equal(JSON.stringify(two.items), JSON.stringify(split([long], true).items), 'same items as one chunk');
  // end of input with an event held: read as it is, flushed or not
  const open = Buffer.from(events(2) + 'event: d\ndata: {"open":1}');
  for (const flush of [true, false]) {
    const parts = [open.subarray(0, open.length - 5), open.subarray(open.length - 5)];
    t.equal(JSON.stringify(asLines(split(parts, true, flush).items)), JSON.stringify(split(parts, false, flush).items), `held at the end, flush ${flush}`);
  }
  t.end();
});

t.test('held bytes survive a caller that refills its chunk Buffer, and chunks of every size after them', (t) => {
  const input = Buffer.from(events(400, (i) => `{"i":${i},"t":"${'é'.repeat(i % 90)}"}`));
  const whole = split([input], true);
  for (const size of [7, 50, 333, 1536]) {
    const run = split(fixedChunks(input, size), true, true, true);
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
  const mixed = split(chunks, true);
  t.equal(JSON.stringify(mixed.items), JSON.stringify(split([long], true).items), 'chunks of 3 B to 70,000 B: the items of one chunk');
  t.equal(mixed.taken, 3000, 'chunks of 3 B to 70,000 B: every event taken whole');
  t.end();
});
