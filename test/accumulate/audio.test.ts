import t from 'tap';
import { base64DecodedBytes } from '../../lib/accumulate/audio.js';
import { rng } from '../helpers/chunks.js';

t.test('decoded size from base64 length and padding, padded or not', async (t) => {
  const r = rng(7);
  for (let n = 0; n <= 300; n++) {
    const bytes = Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));
    t.equal(base64DecodedBytes(bytes.toString('base64')), n, `base64 ${n}`);
    t.equal(base64DecodedBytes(bytes.toString('base64url')), n, `base64url ${n}`);
  }
  t.equal(base64DecodedBytes(''), 0);
  t.equal(base64DecodedBytes('AAAA'), 3);
  t.equal(base64DecodedBytes('AA=='), 1);
  t.equal(base64DecodedBytes('AAA='), 2);
});
