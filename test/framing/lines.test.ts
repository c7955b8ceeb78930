/**
 * The line splitter's line-start hook (lib/framing/lines.ts): it may take
 * whole lines itself, or say LEAVE_UNREAD, and the splitter stops there, says
 * how many bytes it left, and reads them when they are pushed again, with the
 * offsets they had.
 */
import t from 'tap';
import { createLineSplitter, LEAVE_UNREAD } from '../../lib/framing/lines.js';
import { latin1 } from '../../lib/framing/utf8.js';

function splitter(stopAt: string | null, take: string | null) {
  const lines: string[] = [];
  let stops = 0;
  const s = createLineSplitter(
    1 << 10,
    (buf, start, end, offset) => lines.push(`${offset}:${latin1(buf, start, end)}`),
    () => 0,
    (buf, pos, offset) => {
      const rest = latin1(buf, pos, buf.length);
      if (take !== null && rest.startsWith(take)) {
        lines.push(`${offset}:taken`);
        return pos + take.length;
      }
      if (stopAt !== null && rest.startsWith(stopAt) && stops++ === 0) return LEAVE_UNREAD;
      return -1;
    },
  );
  return { s, lines };
}

t.test('LEAVE_UNREAD: reading stops at that line, the bytes left are counted, and read again with their offsets', (t) => {
  const input = Buffer.from('a\r\nb\nxx\ny\n');
  const plain = splitter(null, null);
  t.equal(plain.s.push(input), 0, 'nothing left unread without the answer');
  plain.s.end(true);
  const { s, lines } = splitter('xx', null);
  const unread = s.push(input);
  t.equal(unread, 5, 'the five bytes from `xx` on are left');
  t.same(lines, ['0:a', '3:b'], 'the lines before it were read');
  t.equal(s.push(input.subarray(input.length - unread)), 0, 'pushed again: read');
  s.end(true);
  t.same(lines, plain.lines, 'the same lines and offsets as read at once');
  t.end();
});

t.test('lines the hook takes whole are skipped, offsets go on after them', (t) => {
  const { s, lines } = splitter(null, 'b\nc\n');
  s.push(Buffer.from('a\nb\nc\nd\n'));
  s.end(true);
  t.same(lines, ['0:a', '2:taken', '6:d']);
  t.end();
});
