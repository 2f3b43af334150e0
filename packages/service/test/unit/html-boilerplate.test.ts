import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../src/parsing/formats/html.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { makeEpub } from '../support/fixtures.js';

/** A page as documentation generators write them (DocBook's layout): banner, nav bars, content. */
function docPage(content: string): string {
  return `<!doctype html><html><head><title>A.8. Kali Linux</title></head><body>
    <div id="banner"><a href="http://example.org/get/"><span class="text">Download the ebook</span></a></div>
    <p id="title"><a href="http://www.debian.org"><img alt="Product Site" src="l.png"/></a><a href="index.html"><img alt="Documentation Site" src="r.png"/></a></p>
    <ul class="docnav top"><li class="previous"><a href="sect.tails.html"><strong>Prev</strong></a></li><li class="home">The Handbook</li><li class="next"><a href="sect.devuan.html"><strong>Next</strong></a></li></ul>
    <div class="section">${content}</div>
    <ul class="docnav"><li class="previous"><a href="sect.tails.html"><strong>Prev</strong>A.7. Tails</a></li><li class="up"><a href="#"><strong>Up</strong></a></li><li class="home"><a href="index.html"><strong>Home</strong></a></li><li class="next"><a href="sect.devuan.html"><strong>Next</strong>A.9. Devuan</a></li></ul>
  </body></html>`;
}

describe('HTML navigation of documentation sites', () => {
  it('drops banners, Prev/Up/Next bars and link-only lists; keeps the content and its own URLs', () => {
    const { text } = parseHtml(
      docPage(
        '<h2>A.8. Kali Linux</h2><p>Kali Linux is a Debian-based distribution specializing in penetration testing. It provides software that helps auditing the security of an existing network or computer while it is live.</p><p>→ <a href="https://kali.org">https://kali.org</a></p>',
      ),
    );
    expect(text).toBe(
      '## A.8. Kali Linux\n\nKali Linux is a Debian-based distribution specializing in penetration testing. It provides software that helps auditing the security of an existing network or computer while it is live.\n\n→ https://kali.org',
    );
  });

  it('drops a chapter table of contents but keeps prose that merely contains links', () => {
    const toc = Array.from(
      { length: 12 },
      (_, i) => `<dt><a href="s${i}.html">6.${i}. Section ${i}</a></dt>`,
    ).join('');
    const prose =
      '<p>APT needs a list of package sources: the file <a href="apt.html#sources">sources.list</a> lists the repositories that publish Debian packages, and APT imports the list of packages each one publishes.</p>';
    const { text } = parseHtml(
      docPage(`<h1>Chapter 6. APT</h1><div class="toc"><dl class="toc">${toc}</dl></div>${prose}`),
    );
    expect(text).not.toMatch(/Section \d/);
    expect(text).toContain('the file sources.list lists the repositories');
    expect(text).toMatch(/^# Chapter 6\. APT/);
  });

  it('keeps the links of a page that is nothing but links (a site index), rather than leaving it empty', () => {
    const items = Array.from(
      { length: 30 },
      (_, i) => `<li><a href="p${i}.html">Page number ${i}</a></li>`,
    ).join('');
    const { text } = parseHtml(`<html><body><h1>Index</h1><ul>${items}</ul></body></html>`);
    expect(text).toContain('- Page number 29');
  });

  it('writes a definition list with each term leading its definition', () => {
    const { text } = parseHtml(
      '<html><body><p>The first field indicates the source type:</p><dl><dt><code>deb</code></dt><dd><p>package source of binary packages</p></dd><dt>deb-src</dt><dd>package source of source packages</dd><dt>sources.list¶</dt><dd><ul><li>one line per source</li></ul></dd></dl></body></html>',
    );
    expect(text).toBe(
      'The first field indicates the source type:\n\ndeb: package source of binary packages\n\ndeb-src: package source of source packages\n\nsources.list\n\n- one line per source',
    );
  });

  it('keeps tip and note boxes of long documentation pages, and drops comment threads and share bars', () => {
    const prose = Array.from(
      { length: 40 },
      (_, i) =>
        `<p>Paragraph ${i} explains how the scheduler runs commands at regular intervals on the machine.</p>`,
    ).join('');
    const { text } = parseHtml(
      docPage(
        `<h2>9.7. Scheduling Tasks</h2>${prose}<div class="sidebar"><div class="titlepage"><p class="title"><strong>TIP</strong> Restricting access</p></div><p>You can restrict access to crontab by creating an explicit authorization file in /etc/cron.allow.</p></div>` +
          '<div id="comments"><p>Great article, thanks! Posted by a reader on a sunny day with a long comment.</p></div><div class="share-buttons"><p>Share this page with your friends and colleagues today.</p></div>',
      ),
    );
    expect(text).toContain(
      'You can restrict access to crontab by creating an explicit authorization file in /etc/cron.allow.',
    );
    expect(text).toContain('Paragraph 39 explains');
    expect(text).not.toContain('Great article');
    expect(text).not.toContain('Share this page');
  });
});

describe("XHTML's self-closed elements", () => {
  const page = (
    prolog: string,
  ) => `${prolog}<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Archive</title></head><body>
    <p>The Debian archive has three areas, each with its own rules for the software it holds.</p>
    <div class="table"><a id="archive-areas"/><p class="title"><b>Table 2.1. Areas of the archive</b></p>
    <table><tr><th>area</th><th>software</th></tr>
      <tr><td>main</td><td>DFSG compliant, with no dependency to non-free</td></tr>
      <tr><td>contrib</td><td>DFSG compliant but having dependency to non-free</td></tr>
      <tr><td>non-free</td><td>not DFSG compliant</td></tr></table><br/></div>
    <p>Use main only if you want a free system.</p></body></html>`;

  it('closes an anchor written <a id="…"/> in a page that declares itself XHTML, so the table after it is read', () => {
    // Read as HTML, the anchor opened a link holding the whole table, which was dropped as navigation.
    const { text } = parseHtml(page('<?xml version="1.0" encoding="UTF-8"?>\n'));
    expect(text).toContain('| contrib | DFSG compliant but having dependency to non-free |');
    expect(text).toContain('Use main only if you want a free system.');
  });
});

describe("an e-book's XHTML chapters", () => {
  it('close their self-closed anchors too, so a table after one stays a table', async () => {
    const epub = makeEpub('Areas', [
      {
        file: 'c1.xhtml',
        html: '<h1>Areas</h1><a id="t1"/><table><tr><th>area</th><th>software</th></tr><tr><td>main</td><td>free</td></tr><tr><td>contrib</td><td>free, needing non-free</td></tr></table><p>Pick main.</p>',
      },
    ]);
    const doc = await parseBytes(epub, 'areas.epub', null);
    // Read as HTML, the anchor held the table as link text, and it was flattened to one line.
    expect(doc.text).toContain('| contrib | free, needing non-free |');
  });
});
