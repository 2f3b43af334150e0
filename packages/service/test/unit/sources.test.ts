import { describe, expect, it } from 'vitest';
import type { ListedItem, PreviousItem } from '../../src/sources/model.js';
import { canonicalUrl, MAX_LINKS_PER_PAGE, pageLinks, sitemapEntries } from '../../src/sources/pages.js';
import { exceedsDeletionLimit, planSync } from '../../src/sources/plan.js';
import { MAX_CRAWL_DELAY_SECONDS, PathPattern, RobotsRules } from '../../src/sources/robots.js';
import { SyncSlots } from '../../src/sources/sync.js';

const prev = (key: string, fields: Partial<PreviousItem> = {}): PreviousItem => ({
  key,
  documentId: `doc_${key}`,
  version: 1,
  documentStatus: 'ready',
  links: null,
  ...fields,
});
const item = (
  key: string,
  fingerprint: ListedItem['fingerprint'],
  extra: Partial<ListedItem> = {},
): ListedItem => ({
  key,
  filename: key,
  url: null,
  fingerprint,
  ...extra,
});

describe('planning a sync', () => {
  it('tells new, changed, refreshed, unchanged and removed items apart by each type’s fingerprint', () => {
    const previous = new Map(
      [
        prev('s3-same', { etag: 'e1', sizeBytes: 10 }),
        prev('s3-new-etag', { etag: 'e1', sizeBytes: 10 }),
        prev('file-touched', { sizeBytes: 5, mtimeMs: 1000, contentHash: 'h1' }),
        prev('file-edited', { sizeBytes: 5, mtimeMs: 1000, contentHash: 'h1' }),
        prev('file-same', { sizeBytes: 5, mtimeMs: 1000, contentHash: 'h1' }),
        prev('page-304', { etag: '"a"', contentHash: 'p1' }),
        prev('page-new-etag-same-body', { etag: '"a"', contentHash: 'p1' }),
        prev('failed-before', { etag: 'e1', sizeBytes: 1, documentStatus: 'failed' }),
        prev('gone', { etag: 'e1', sizeBytes: 1 }),
      ].map((p) => [p.key, p]),
    );
    const plan = planSync(
      [
        item('s3-same', { etag: 'e1', sizeBytes: 10 }),
        item('s3-new-etag', { etag: 'e2', sizeBytes: 10 }),
        item('file-touched', { sizeBytes: 5, mtimeMs: 2000, contentHash: 'h1' }),
        item('file-edited', { sizeBytes: 5, mtimeMs: 2000, contentHash: 'h2' }),
        item('file-same', { sizeBytes: 5, mtimeMs: 1000, contentHash: 'h1' }),
        item('page-304', { etag: '"a"', contentHash: 'p1' }, { notModified: true }),
        item('page-new-etag-same-body', { etag: '"b"', contentHash: 'p1' }),
        item('failed-before', { etag: 'e1', sizeBytes: 1 }),
        item('brand-new', { etag: 'e9', sizeBytes: 3 }),
        item('brand-new', { etag: 'e9', sizeBytes: 3 }),
      ],
      previous,
    );
    expect(plan.added.map((i) => i.key)).toEqual(['brand-new']);
    expect(plan.changed.map((c) => c.documentId)).toEqual([
      'doc_s3-new-etag',
      'doc_file-edited',
      'doc_failed-before',
    ]);
    expect(plan.refreshed.map((c) => c.item.key)).toEqual(['file-touched', 'page-new-etag-same-body']);
    expect(plan.unchanged).toBe(3);
    expect(plan.removed.map((r) => r.key)).toEqual(['gone']);
  });

  it('makes no document of what no worker can read, counts it by reason, and removes one that became so', () => {
    const previous = new Map([prev('was-text.md', { sizeBytes: 5, mtimeMs: 1 })].map((p) => [p.key, p]));
    const binary = 'binary content of no format DocSlurp reads';
    const plan = planSync(
      [
        item('a.gz', { sizeBytes: 9 }, { skipReason: binary }),
        item('b.gz', { sizeBytes: 9 }, { skipReason: binary }),
        item('empty.md', { sizeBytes: 0 }, { skipReason: 'the file is empty' }),
        item('was-text.md', { sizeBytes: 9, mtimeMs: 2 }, { skipReason: binary }),
        item('ok.md', { sizeBytes: 3 }),
      ],
      previous,
    );
    expect(plan.added.map((i) => i.key)).toEqual(['ok.md']);
    expect(plan.removed.map((r) => r.key)).toEqual(['was-text.md']);
    expect(plan.skipped).toEqual({
      total: 4,
      reasons: [
        { reason: binary, count: 3, examples: ['a.gz', 'b.gz', 'was-text.md'] },
        { reason: 'the file is empty', count: 1, examples: ['empty.md'] },
      ],
    });
    expect(planSync([item('ok.md', {})], new Map()).skipped).toBeNull();
  });

  it('refuses to remove more than the allowed share of the previous items', () => {
    const previous = new Map([prev('a'), prev('b'), prev('c'), prev('d')].map((p) => [p.key, p]));
    const keep = (keys: string[]) =>
      planSync(
        keys.map((k) => item(k, {}, { notModified: true })),
        previous,
      );
    expect(exceedsDeletionLimit(keep(['a', 'b']), 4, 0.5)).toBe(false);
    expect(exceedsDeletionLimit(keep(['a']), 4, 0.5)).toBe(true);
    expect(exceedsDeletionLimit(keep([]), 4, 1)).toBe(false);
    expect(exceedsDeletionLimit(keep(['a', 'b', 'c']), 4, 0)).toBe(true);
    expect(exceedsDeletionLimit(keep(['a', 'b', 'c', 'd']), 4, 0)).toBe(false);
  });
});

describe('robots.txt', () => {
  const rules = RobotsRules.parse(
    [
      'User-agent: OtherBot',
      'Disallow: /',
      '',
      'User-agent: *',
      'Disallow: /private',
      'Allow: /private/public',
      'Disallow: /*.pdf$',
      'Disallow:',
    ].join('\n'),
    'DocSlurp',
  );
  const allows = (p: string) => rules.allows(new URL(`http://x${p}`));

  it('applies the longest matching rule of the group for any agent', () => {
    expect(allows('/docs')).toBe(true);
    expect(allows('/private/x')).toBe(false);
    expect(allows('/private/public/y')).toBe(true);
    expect(allows('/a/file.pdf')).toBe(false);
    expect(allows('/a/file.pdf?download=1')).toBe(true);
  });

  it('matches wildcards as robots.txt means them', () => {
    const m = (pattern: string, target: string) => new PathPattern(pattern).matches(target);
    expect(m('/a*b', '/a-x-b')).toBe(true);
    expect(m('/a*b', '/a-x-bc')).toBe(true);
    expect(m('/a*b$', '/a-x-bc')).toBe(false);
    expect(m('/a*b$', '/a-b-b')).toBe(true);
    expect(m('/*.pdf$', '/x.pdf')).toBe(true);
    expect(m('/*.pdf$', '/x.pdf.html')).toBe(false);
    expect(m('/x$', '/x')).toBe(true);
    expect(m('/x$', '/xy')).toBe(false);
    expect(m('/a**c', '/abc')).toBe(true);
    expect(m('*', '/anything')).toBe(true);
    expect(m('/ab*ab*ab', '/ababab')).toBe(true);
    expect(m('/aab*aab', '/aabaab')).toBe(true);
    expect(m('/aab*aab', '/aaba')).toBe(false);
    expect(m('/p*abcabd', '/pabcabcabd')).toBe(true);
  });

  it('matches a rule built for backtracking in linear time', () => {
    // `Disallow: /*a*a*…*b` against a long path of a's: exponential for `.*` patterns (163 s for
    // twelve wildcards on 40 characters), a single pass here even for 1,000 wildcards and 20,000 a's.
    const rules = RobotsRules.parse(`User-agent: *\nDisallow: /${'*a'.repeat(1000)}*b\n`, 'DocSlurp');
    expect(rules.allows(new URL(`http://x/${'a'.repeat(20_000)}`))).toBe(true);
    expect(rules.allows(new URL(`http://x/${'a'.repeat(20_000)}b`))).toBe(false);
  });

  it('takes the Crawl-delay of its group, within a cap', () => {
    expect(RobotsRules.parse('User-agent: *\nCrawl-delay: 2\n', 'DocSlurp').crawlDelaySeconds).toBe(2);
    expect(RobotsRules.parse('User-agent: *\nCrawl-delay: 3600\n', 'DocSlurp').crawlDelaySeconds).toBe(
      MAX_CRAWL_DELAY_SECONDS,
    );
    expect(RobotsRules.parse('User-agent: *\nDisallow: /x\n', 'DocSlurp').crawlDelaySeconds).toBeUndefined();
  });

  it('uses the group naming the agent over the * group', () => {
    const own = RobotsRules.parse(
      'User-agent: *\nDisallow: /\n\nUser-agent: docslurp\nDisallow: /x\n',
      'DocSlurp',
    );
    expect(own.allows(new URL('http://x/a'))).toBe(true);
    expect(own.allows(new URL('http://x/x/1'))).toBe(false);
  });
});

describe('pages and sitemaps', () => {
  it('finds links (not nofollow ones) and the canonical URL, against the page’s base', () => {
    const html =
      '<html><head><base href="/docs/"><link rel="canonical" href="guide#top"></head><body>' +
      '<a href="a.html#frag">A</a><a href="https://other.example/x">X</a><a href="mailto:x@y">M</a>' +
      '<a rel="nofollow" href="/login">L</a></body></html>';
    expect(pageLinks(html, 'http://site.test/docs/guide?x=1')).toEqual({
      links: ['http://site.test/docs/a.html', 'https://other.example/x'],
      canonical: 'http://site.test/docs/guide',
    });
  });

  it('reads sitemaps and sitemap indexes', () => {
    expect(sitemapEntries('<urlset><url><loc> http://a.test/?a=1&amp;b=2 </loc></url></urlset>')).toEqual({
      index: false,
      locations: ['http://a.test/?a=1&b=2'],
    });
    expect(
      sitemapEntries('<sitemapindex><sitemap><loc>http://a.test/s1.xml</loc></sitemap></sitemapindex>').index,
    ).toBe(true);
  });

  it('reads a sitemap built for backtracking in one pass, and what it holds around it', () => {
    // `<loc>` and spaces with no end: 4,000 spaces took a lazy pattern 13.5 s, 40,000 never ended.
    const hostile = `<urlset><url><loc>http://a.test/1</loc></url><loc>${' '.repeat(400_000)}`;
    expect(sitemapEntries(hostile).locations).toEqual(['http://a.test/1', '']);
    const many = `<urlset>${'<url><loc>http://a.test/p</loc></url>'.repeat(60_000)}</urlset>`;
    expect(sitemapEntries(many).locations).toHaveLength(50_000);
  });

  it('reads a page or a sitemap of 100,000 unclosed tags in one pass, up to where it nests too deeply', () => {
    // htmlparser2 shifts its array of open elements at every tag: 8.7 s for this page, 2 s for this
    // sitemap, 50 s at twice the size, before the reading stopped at MAX_NESTING_DEPTH.
    const started = performance.now();
    const page = `<a href="/first">1</a>${'<div>'.repeat(100_000)}<a href="/deep">2</a>`;
    expect(pageLinks(page, 'http://site.test/').links).toEqual(['http://site.test/first']);
    const sitemap = `<urlset><url><loc>http://a.test/1</loc></url>${'<url>'.repeat(100_000)}<loc>http://a.test/2</loc>`;
    expect(sitemapEntries(sitemap).locations).toEqual(['http://a.test/1']);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('takes at most MAX_LINKS_PER_PAGE links of a page', () => {
    const farm = Array.from({ length: 20_000 }, (_, i) => `<a href="/p${i}">p</a>`).join('');
    const { links } = pageLinks(`<html><body>${farm}</body></html>`, 'http://site.test/');
    expect(links).toHaveLength(MAX_LINKS_PER_PAGE);
    expect(links[0]).toBe('http://site.test/p0');
  });

  it('normalises page URLs and refuses other schemes and credentials', () => {
    expect(canonicalUrl('HTTP://Site.Test:80/a#b')).toBe('http://site.test/a');
    expect(canonicalUrl('ftp://site.test/a')).toBeUndefined();
    expect(canonicalUrl('http://user:pw@site.test/')).toBeUndefined();
  });
});

describe('include and exclude patterns', () => {
  it('match as globs: * within a part, ** across parts, ? one character, bare names anywhere', async () => {
    const { globMatcher, itemFilter } = await import('../../src/sources/globs.js');
    const m = (p: string, path: string) => globMatcher(p)(path);
    expect(m('*.gz', 'a/b/notes.gz')).toBe(true);
    expect(m('*.gz', 'a/b/notes.md')).toBe(false);
    expect(m('docs/**', 'docs/a/b.md')).toBe(true);
    expect(m('docs/**', 'other/docs/b.md')).toBe(false);
    expect(m('docs/*.md', 'docs/a/b.md')).toBe(false);
    expect(m('docs/*.md', 'docs/b.md')).toBe(true);
    expect(m('/blog/*', '/blog/post')).toBe(true);
    expect(m('/blog/*', '/blog/2024/post')).toBe(false);
    expect(m('**/index.?d', 'a/b/index.md')).toBe(true);
    expect(m('rép*', 'répertoire')).toBe(true);
    const wanted = itemFilter(['docs/**'], ['*.png', 'docs/drafts/**']);
    expect(['docs/a.md', 'docs/b.png', 'docs/drafts/c.md', 'notes.md'].filter(wanted)).toEqual(['docs/a.md']);
    expect(itemFilter(undefined, undefined)('anything')).toBe(true);
  });

  it('answer as a plain walk does, for many patterns at once', async () => {
    // Random patterns over a, b, / and the wildcards, many to a list so that the positions of one
    // list run over several words, against a plain recursive reading of what a glob means.
    const { globMatcher, itemFilter } = await import('../../src/sources/globs.js');
    const means = (pattern: string, path: string): boolean => {
      const p = path.startsWith('/') ? path.slice(1) : path;
      const text = pattern.includes('/') ? p : p.slice(p.lastIndexOf('/') + 1);
      const glob = pattern.startsWith('/') ? pattern.slice(1) : pattern;
      const at = (g: number, t: number): boolean => {
        if (g === glob.length) return t === text.length;
        if (glob.startsWith('**', g)) {
          let next = g;
          while (glob[next] === '*') next++;
          return at(next, t) || (t < text.length && at(g, t + 1));
        }
        if (glob[g] === '*') return at(g + 1, t) || (t < text.length && text[t] !== '/' && at(g, t + 1));
        if (glob[g] === '?') return t < text.length && text[t] !== '/' && at(g + 1, t + 1);
        return text[t] === glob[g] && at(g + 1, t + 1);
      };
      return at(0, 0);
    };
    let seed = 44;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const word = (alphabet: string, length: number) =>
      Array.from({ length }, () => alphabet[random(alphabet.length)]).join('');
    // A path a pattern may well match: its wildcards filled in at random.
    const instance = (pattern: string) =>
      pattern.replace(/\*+|\?/g, (w) =>
        w === '?' ? word('ab', 1) : word(w === '*' ? 'ab' : 'ab/', random(4)),
      );
    for (let round = 0; round < 300; round++) {
      // A first pattern no path matches moves the others to every place in the words.
      const patterns = [
        'c'.repeat(1 + random(64)),
        ...Array.from({ length: 1 + random(16) }, () => word('aab/*?', 1 + random(12))),
      ];
      const paths = Array.from({ length: 30 }, (_, i) =>
        i % 2 ? word('aab/', random(14)) : instance(patterns[1 + random(patterns.length - 1)]!),
      );
      const filter = itemFilter(patterns, undefined);
      for (const path of paths) {
        expect(filter(path), `${patterns.join(' ')} on ${path}`).toBe(patterns.some((g) => means(g, path)));
        expect(globMatcher(patterns[1]!)(path), `${patterns[1]} on ${path}`).toBe(means(patterns[1]!, path));
      }
    }
  });

  it('are refused when one list holds more than a path may be walked against, saying why', async () => {
    const { createSource } = await import('../../src/sources/sources.js');
    const refusal = (settings: Record<string, unknown>) =>
      // The settings are checked before anything is stored, so no store is needed to be refused.
      createSource({} as never, { accountId: 'acc_t' } as never, 'ws_t', { type: 'website', settings }).then(
        () => 'created',
        (err: { code: string; message: string }) => `${err.code}: ${err.message}`,
      );
    const site = 'https://docs.example/';
    const many = Array.from({ length: 50 }, (_, i) => `/docs/section-${i}/${'x'.repeat(24)}/**`);
    expect(many.join('').length).toBe(2190);
    expect(await refusal({ startUrl: site, exclude: many })).toBe(
      'invalid_request: Invalid website settings: exclude: at most 2,048 characters of patterns in all.',
    );
    expect(await refusal({ startUrl: site, include: ['x'.repeat(257)] })).toBe(
      'invalid_request: Invalid website settings: include.0: a pattern has at most 256 characters.',
    );
  });

  it('want no path longer than they read, and any path when there are none', async () => {
    const { itemFilter, MAX_MATCHED_PATH_LENGTH } = await import('../../src/sources/globs.js');
    const long = `docs/${'a'.repeat(MAX_MATCHED_PATH_LENGTH)}.md`;
    expect(itemFilter(['docs/**'], undefined)(long)).toBe(false);
    expect(itemFilter(undefined, ['*.png'])(long)).toBe(false);
    expect(itemFilter(undefined, undefined)(long)).toBe(true);
    expect(itemFilter(['docs/**'], ['*.png'])(`docs/${'a'.repeat(MAX_MATCHED_PATH_LENGTH - 8)}.md`)).toBe(
      true,
    );
  });

  it('take time linear in the path for patterns built to backtrack', async () => {
    const { globMatcher } = await import('../../src/sources/globs.js');
    const pattern = `${'*a'.repeat(100)}*b`;
    expect(globMatcher(pattern)('a'.repeat(20_000))).toBe(false);
    expect(globMatcher('**/'.repeat(50) + 'x')(`${'a/'.repeat(5000)}y`)).toBe(false);
  });
});

describe("a worker's sync slots", () => {
  it("gives one account at most its share, never a source's second sync, and takes a slot back once", () => {
    const slots = new SyncSlots(2);
    const b1 = slots.take('acc_b', 'src_b1');
    const b2 = slots.take('acc_b', 'src_b2');
    expect(typeof b1).toBe('object');
    expect(typeof b2).toBe('object');
    expect(slots.take('acc_b', 'src_b3')).toBe('account');
    expect(typeof slots.take('acc_a', 'src_a1')).toBe('object');
    // A second job of a source in hand, whoever's account it is, waits for the first.
    expect(slots.take('acc_a', 'src_b1')).toBe('source');
    if (typeof b1 !== 'object') throw new Error('no slot');
    b1.release();
    b1.release();
    // Released twice, counted once: B has one sync left, so one more fits, and no second.
    expect(typeof slots.take('acc_b', 'src_b1')).toBe('object');
    expect(slots.take('acc_b', 'src_b3')).toBe('account');
  });
});
