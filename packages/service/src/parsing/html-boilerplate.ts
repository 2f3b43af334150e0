/**
 * Navigation of generated documentation sites (DocBook, Sphinx, man-page sites, wikis) repeated in every
 * page: "Prev Up Home Next" bars, banners, breadcrumbs, a chapter's table of contents. Such blocks
 * became passages that ranked for every question and were quoted as answers (issue 16). They are
 * recognised the way boilerplate detectors do, by link density: a block whose visible text is nearly
 * all link text is a menu, not prose. A link whose text is a URL or an address is content ("→
 * https://kali.org") and does not count as navigation.
 */

interface ElementLike {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<ElementLike>;
  getAttribute?: (name: string) => string | null;
  remove?: () => void;
}

/** Blocks that may be menus whatever their size. Headings, code and table cells never are on their own. */
const CANDIDATES = new Set(['UL', 'OL', 'TABLE', 'DL', 'P', 'NAV', 'HEADER', 'FOOTER', 'ASIDE']);
/**
 * Containers count as menus only when short (a banner, a logo bar): a long one that is mostly links
 * usually wraps a table of contents next to real text (a title page), and its parts are judged instead.
 */
const CONTAINERS = new Set(['DIV', 'SECTION', 'SPAN']);
const SHORT_CONTAINER_CHARS = 150;
const NEVER = new Set(['PRE', 'CODE', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'SCRIPT', 'STYLE']);

/** Share of a block's visible text inside links from which it counts as navigation. */
const NAVIGATION_LINK_SHARE = 0.8;
/** A list is a menu when this share of its items are links ("Prev | Handbook | Next"). */
const NAVIGATION_ITEM_SHARE = 2 / 3;

const SELF_DESCRIBING = /^\s*(https?:\/\/|ftp:\/\/|www\.|mailto:|[\w.+-]+@[\w-]+\.)/i;

interface Measure {
  visible: number;
  linked: number;
}

function visibleLength(text: string): number {
  return text.replace(/[\s\u00a0¶→←↑»«|·•]+/g, '').length;
}

/** Visible characters of each element's subtree and how many of them are link text (images count by alt text). */
function measure(node: ElementLike, inLink: boolean, sizes: Map<ElementLike, Measure>): Measure {
  if (node.nodeType === 3) {
    const n = visibleLength(node.textContent ?? '');
    return { visible: n, linked: inLink ? n : 0 };
  }
  if (node.nodeType !== 1 || node.nodeName === 'SCRIPT' || node.nodeName === 'STYLE')
    return { visible: 0, linked: 0 };
  if (node.nodeName === 'IMG') {
    const n = visibleLength(node.getAttribute?.('alt') ?? '');
    return { visible: n, linked: inLink ? n : 0 };
  }
  const isNavLink = node.nodeName === 'A' && !SELF_DESCRIBING.test(node.textContent ?? '');
  const total: Measure = { visible: 0, linked: 0 };
  for (const child of Array.from(node.childNodes)) {
    const m = measure(child, inLink || isNavLink, sizes);
    total.visible += m.visible;
    total.linked += m.linked;
  }
  sizes.set(node, total);
  return total;
}

/** A list of two or more items, most of them links (each item nearly all link text). */
function isLinkList(node: ElementLike, sizes: Map<ElementLike, Measure>): boolean {
  if (node.nodeName !== 'UL' && node.nodeName !== 'OL') return false;
  const items = Array.from(node.childNodes).filter((c) => c.nodeType === 1 && c.nodeName === 'LI');
  if (items.length < 2) return false;
  const links = items.filter((item) => {
    const m = sizes.get(item);
    return !!m && m.linked > 0 && m.linked >= NAVIGATION_LINK_SHARE * m.visible;
  });
  return links.length >= NAVIGATION_ITEM_SHARE * items.length;
}

/**
 * The navigation blocks under `root` (outermost only) and how many visible characters the page keeps
 * without them. A page that is nothing but navigation (a site's index) may keep its links: the caller
 * decides, then removes the blocks.
 */
export function findNavigation(root: ElementLike): { blocks: ElementLike[]; remaining: number } {
  const sizes = new Map<ElementLike, Measure>();
  const all = measure(root, false, sizes);
  let removedChars = 0;
  const doomed: ElementLike[] = [];
  const visit = (node: ElementLike) => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType !== 1 || NEVER.has(child.nodeName)) continue;
      const m = sizes.get(child);
      const linkDense = !!m && m.linked > 0 && m.linked >= NAVIGATION_LINK_SHARE * m.visible;
      const candidate =
        CANDIDATES.has(child.nodeName) ||
        (CONTAINERS.has(child.nodeName) && !!m && m.visible <= SHORT_CONTAINER_CHARS);
      if (m && candidate && (linkDense || isLinkList(child, sizes))) {
        doomed.push(child);
        removedChars += m.visible;
        continue;
      }
      visit(child);
    }
  };
  visit(root);
  return { blocks: doomed, remaining: all.visible - removedChars };
}
