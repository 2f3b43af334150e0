import { describe, expect, it } from 'vitest';
import {
  clampScale,
  fitScale,
  MAX_SCALE,
  MIN_SCALE,
  pinchScale,
  stepScale,
  textColumn,
  zoomText,
} from '../../src/lib/zoom.js';

describe('zooming a PDF', () => {
  it('steps up and down by a quarter, within the limits', () => {
    expect(stepScale(1, 1)).toBe(1.25);
    expect(stepScale(1.25, -1)).toBe(1);
    expect(stepScale(MAX_SCALE, 1)).toBe(MAX_SCALE);
    expect(stepScale(MIN_SCALE, -1)).toBe(MIN_SCALE);
    expect(clampScale(100)).toBe(MAX_SCALE);
  });

  it('follows the fingers of a pinch: twice as far apart is twice the scale', () => {
    expect(pinchScale(0.8, 100, 200)).toBeCloseTo(1.6);
    expect(pinchScale(0.8, 200, 100)).toBeCloseTo(0.4);
    expect(pinchScale(1, 100, 10_000)).toBe(MAX_SCALE);
    // Fingers that started at one point: no zoom rather than an infinite one.
    expect(pinchScale(1.5, 0, 50)).toBe(1.5);
  });

  it('finds the text column between the margins, blank items left out', () => {
    expect(
      textColumn([
        { x: 72, width: 300 },
        { x: 90, width: 380 },
        { x: 10, width: 0 },
      ]),
    ).toEqual({ left: 72, width: 398 });
    expect(textColumn([])).toBeUndefined();
    expect(textColumn([{ x: 5, width: 0 }])).toBeUndefined();
  });

  it('fits a width into the room there is, and says the zoom in per cent', () => {
    // A 398-point column on a phone's 358 px: a little under 90 %.
    expect(fitScale(358, 398)).toBeCloseTo(0.8995, 3);
    expect(fitScale(10_000, 10)).toBe(MAX_SCALE);
    expect(zoomText(0.8995)).toBe('90 %');
    expect(zoomText(1.25)).toBe('125 %');
  });
});
