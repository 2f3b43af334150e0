import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/parsing/detect.js';

/** A 1×1 24-bit bitmap: 14-byte file header, 40-byte info header, one padded row. */
function bmp(): Buffer {
  const b = Buffer.alloc(58);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(58, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(1, 18);
  b.writeInt32LE(1, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  return b;
}

describe('BMP detection', () => {
  it('recognises a real bitmap whatever its name', () => {
    expect(detectFormat(bmp(), 'picture.txt', 'text/plain')).toEqual({
      format: 'image',
      mediaType: 'image/bmp',
    });
  });

  it('leaves text that happens to start with "BM" as text', () => {
    const text = Buffer.from(
      'BMAL1 and CLOCK, two essential components of the circadian clock, are involved.\n',
    );
    expect(detectFormat(text, 'abstract.txt', 'text/plain').format).toBe('text');
    expect(detectFormat(Buffer.from('BMI and mortality'), 'notes.md', null).format).toBe('markdown');
  });
});
