/**
 * Scrolls `container` (a scroll box) so that `target` sits a third of the way down it, without
 * scrolling the window: the document's header stays in sight.
 */
export function scrollWithin(
  container: HTMLElement,
  target: Element,
  position: 'start' | 'third' = 'third',
): void {
  const offset = target.getBoundingClientRect().top - container.getBoundingClientRect().top;
  const margin = position === 'start' ? 12 : container.clientHeight / 3;
  container.scrollTop += offset - margin;
}

/**
 * `target` into view within its scroll box, and the box's part of it on screen too: a cited passage
 * whose box starts below the fold (a long record above it, a phone) is scrolled up to, the window
 * moving only as far as it must. Sideways, the box shows the target's start.
 */
export function revealWithin(
  container: HTMLElement,
  target: Element,
  position: 'start' | 'third' = 'third',
): void {
  scrollWithin(container, target, position);
  const box = container.getBoundingClientRect();
  const t = target.getBoundingClientRect();
  if (t.left < box.left || t.left > box.right - 24) container.scrollLeft += t.left - box.left - 12;
  const seen = target.getBoundingClientRect();
  const view = window.innerHeight;
  // On screen already (its first line at least): the window stays where it is.
  if (seen.top >= 0 && seen.top + Math.min(seen.height, 24) <= view) return;
  window.scrollBy({ top: seen.top - view / 3 });
}
