/**
 * Scrolls `container` (a scroll box) so that `target` sits a third of the way down it, without
 * scrolling the window: the document's header and the cited passage note stay in sight.
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
