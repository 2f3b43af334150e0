/**
 * Zooming a PDF's pages. Pages open as wide as the screen allows (at most 125 %), which on a phone
 * makes the text too small to read: the reader zooms with buttons or a pinch, or fits the page's text
 * column (its margins left out) to the width of the screen.
 */

export const MIN_SCALE = 0.25;
export const MAX_SCALE = 4;
/** One press of Zoom in or Zoom out. */
export const ZOOM_STEP = 1.25;

export const clampScale = (s: number) => Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));

/** The next scale up or down: one step, kept within the limits. */
export function stepScale(scale: number, direction: 1 | -1): number {
  return clampScale(direction === 1 ? scale * ZOOM_STEP : scale / ZOOM_STEP);
}

/** The scale a pinch gives: the distance between the two fingers now over where it started. */
export function pinchScale(startScale: number, startDistance: number, distance: number): number {
  if (startDistance <= 0) return startScale;
  return clampScale((startScale * distance) / startDistance);
}

/** A text item of a page at scale 1: its left edge and width, in PDF points. */
export interface TextBox {
  x: number;
  width: number;
}

/**
 * Where a page's text column lies across the page (at scale 1): from the leftmost start of a text
 * item to the rightmost end, blank items left out. Undefined for a page without text (a scan).
 */
export function textColumn(items: readonly TextBox[]): { left: number; width: number } | undefined {
  let left = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  for (const i of items) {
    if (!(i.width > 0)) continue;
    left = Math.min(left, i.x);
    right = Math.max(right, i.x + i.width);
  }
  return right > left ? { left, width: right - left } : undefined;
}

/** The scale at which `width` points fill `room` pixels, kept within the limits. */
export const fitScale = (room: number, width: number) => clampScale(room / width);

/** Zoom as people read it: "125 %". */
export const zoomText = (scale: number) => `${Math.round(scale * 100)} %`;
