import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer, rankQuotes } from '../../src/answers/extractive.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { chunkText } from '../../src/processing/chunker.js';
import { Question } from '../../src/search/question.js';
import { searchHit } from '../support/hits.js';

/** A passage of a parsed document as search returns it: its text and where it lies in the document. */

const parse = (buf: Buffer, name: string) => parseBytes(buf, name, null);

const page = (body: string) =>
  Buffer.from(`<!doctype html><html><head><title>Limits</title></head><body>${body}</body></html>`);

describe('tables keep their header (issue 41)', () => {
  const limits = page(`<h1>Limits</h1>
    <p>Applications that run SQL from untrusted sources should lower these limits.</p>
    <table>
      <tr><th>Limit Setting</th><th>Default Value</th><th>High-security Value</th></tr>
      <tr><td>LIMIT_LENGTH</td><td>1,000,000,000</td><td>1,000,000</td></tr>
      <tr><td>LIMIT_ATTACH</td><td>10</td><td>0</td></tr>
      <tr><td>LIMIT_TRIGGER_DEPTH</td><td>1,000</td><td>10</td></tr>
    </table>`);

  it('answers with the row, quoted with its header, and cites exactly that row', async () => {
    const doc = await parse(limits, 'security.html');
    const [chunk] = chunkText(doc.text, 'doc_l');
    const a = composeExtractiveAnswer(new Question('What is the high-security value of LIMIT_ATTACH?'), [
      searchHit('doc_l', chunk!.text, { charStart: chunk!.charStart, extension: 'html' }),
    ]);
    expect(a.kind).toBe('extractive');
    expect(a.answer).toBe('Limit Setting: LIMIT_ATTACH; Default Value: 10; High-security Value: 0 [1]');
    const c = a.citations[0]!;
    // The citation's offsets are the row's own line in the document's text, pipes and all.
    expect(doc.text.slice(c.charStart, c.charEnd)).toBe('| LIMIT_ATTACH | 10 | 0 |');
  });

  it('keeps a table inside a list item a table, its cells apart', async () => {
    const advice = page(`<ol>
      <li><p>Set the defensive flag.</p></li>
      <li><p>Reduce the limits that SQLite imposes on inputs. The table below provides suggestions:</p>
        <table>
          <tr><th>Limit Setting</th><th>Default Value</th><th>High-security Value</th></tr>
          <tr><td>LIMIT_LENGTH</td><td>1,000,000,000</td><td>1,000,000</td></tr>
          <tr><td>LIMIT_SQL_LENGTH</td><td>1,000,000,000</td><td>100,000</td></tr>
        </table>
        <p>Most applications can reduce limits dramatically.</p></li>
      <li><p>Consider an authorizer.</p></li>
    </ol>`);
    const doc = await parse(advice, 'security.html');
    // Flattened into the item's text, the cells ran together: "LIMIT_SQL_LENGTH1,000,000,000100,000".
    expect(doc.text).toContain(
      [
        '2. Reduce the limits that SQLite imposes on inputs. The table below provides suggestions:',
        '| Limit Setting | Default Value | High-security Value |',
        '| --- | --- | --- |',
        '| LIMIT_LENGTH | 1,000,000,000 | 1,000,000 |',
        '| LIMIT_SQL_LENGTH | 1,000,000,000 | 100,000 |',
        '  Most applications can reduce limits dramatically.',
        '3. Consider an authorizer.',
      ].join('\n'),
    );
    const [chunk] = chunkText(doc.text, 'doc_s');
    const a = composeExtractiveAnswer(new Question('What is the high-security value of LIMIT_SQL_LENGTH?'), [
      searchHit('doc_s', chunk!.text, { charStart: chunk!.charStart, extension: 'html' }),
    ]);
    expect(a.answer).toContain(
      'Limit Setting: LIMIT_SQL_LENGTH; Default Value: 1,000,000,000; High-security Value: 100,000',
    );
  });

  it('quotes a row whole when a cell holds several sentences, and a table in a blockquote as a table', () => {
    const header = [
      '## Database header',
      '',
      '| Offset | Size | Description |',
      '| --- | --- | --- |',
      '| 52 | 4 | The largest root b-tree page number in incremental-vacuum modes. |',
      '| 56 | 4 | The database text encoding. A value of 1 means UTF-8. A value of 2 means UTF-16le. A value of 3 means UTF-16be. |',
      '| 60 | 4 | The "user version" as read and set by the user_version pragma. |',
    ].join('\n');
    const a = composeExtractiveAnswer(
      new Question('In the file header, what does a text encoding value of 2 mean?'),
      [searchHit('doc_f', header)],
    );
    // Cut at its full stops, the row's third sentence was quoted alone, without its row or columns.
    expect(a.answer).toBe(
      'Offset: 56; Size: 4; Description: The database text encoding. A value of 1 means UTF-8. A value of 2 means UTF-16le. A value of 3 means UTF-16be. [1]',
    );
    expect(header.slice(a.citations[0]!.charStart, a.citations[0]!.charEnd)).toMatch(/^\| 56 \|.*\|$/);

    const quoted = [
      'The meanings for various settings of this compile-time option are as follows:',
      '',
      '> | SQLITE_TEMP_STORE | Meaning |',
      '> | --- | --- |',
      '> | 0 | Always use temporary files |',
      '> | 1 | Use files by default but allow the PRAGMA to override |',
      '> | 3 | Always use memory |',
    ].join('\n');
    const b = composeExtractiveAnswer(new Question('What does compiling with SQLITE_TEMP_STORE=3 do?'), [
      searchHit('doc_t', quoted),
    ]);
    expect(b.answer).toBe('SQLITE_TEMP_STORE: 3; Meaning: Always use memory [1]');
  });

  it('answers a question that names a column with a row of that column', () => {
    const flags = [
      '## printf flags',
      '',
      '| Flag | Meaning |',
      '| --- | --- |',
      '| - | Left-justify the value in the output. |',
      '| + | Always show the sign of a number. |',
      '| , | Add comma-separators between every three digits. |',
    ].join('\n');
    const question = new Question('Which printf flag makes the output left-aligned?');
    const hits = [
      searchHit('doc_n', 'Make CSV output from the shell more closely aligned to accepted practice.', {
        score: 1,
      }),
      searchHit('doc_w', 'The output of the .width command is left-aligned in columns.', { score: 0.95 }),
      searchHit('doc_s', 'Tables in box mode are aligned on the output screen.', { score: 0.92 }),
      searchHit('doc_x', 'The shell output is left-aligned unless the mode is changed.', { score: 0.91 }),
      searchHit('doc_p', flags, { score: 0.9 }),
    ];
    // The question names the column ("flag") and the row's cells hold its other words ("left",
    // "output"): the row is the best quote, ahead of a release note sharing "output" and "aligned".
    const [best] = rankQuotes(question, hits).quotes;
    expect(best!.text).toBe('Flag: -; Meaning: Left-justify the value in the output.');
    expect(composeExtractiveAnswer(question, hits).answer).toContain('Flag: -; Meaning: Left-justify');
  });

  it("counts a header's words once for its table, so the row with the answer keeps their weight", () => {
    const options = [
      '## Archive commands',
      '',
      '| Option | Long Option | Purpose |',
      '| --- | --- | --- |',
      '| -c | --create | Create a new archive containing the named files. |',
      '| -x | --extract | Extract files from the archive. |',
      '| -i | --insert | Add files to an existing archive. |',
      '| -r | --remove | Remove files from the archive. |',
      '| -t | --list | List the files in the archive. |',
      '| -u | --update | Add files to an existing archive if they have changed. |',
      '| -v | --verbose | List each file as it is processed. |',
      '| -f FILE | --file FILE | Use FILE as the archive. |',
    ].join('\n');
    const hits = [
      searchHit(
        'doc_a',
        'The recommended way of creating, listing and extracting an SQLite Archive is the command-line shell of SQLite.',
        { score: 1 },
      ),
      searchHit(
        'doc_b',
        'For command-line usage, add the short style command-line options immediately after the "-A".',
        { score: 0.95 },
      ),
      searchHit('doc_c', 'An SQLite Archive is an ordinary SQLite database file that holds files.', {
        score: 0.93,
      }),
      searchHit('doc_t', options, { score: 0.9 }),
    ];
    const a = composeExtractiveAnswer(
      new Question('What is the short option to list the files in an SQLite archive from the command line?'),
      hits,
    );
    // Counted once per row, "option" looked as common as any word of the table, and the row fell
    // under half the best quote's coverage: it was left out of the answer.
    expect(a.answer).toContain('Option: -t; Long Option: --list; Purpose: List the files in the archive.');
  });

  it('prefers the row whose cells hold the values the question gives their columns', () => {
    const settings = [
      '| SQLITE_TEMP_STORE | PRAGMA temp_store | Storage used for TEMP tables and indices |',
      '| --- | --- | --- |',
      '| 0 | any | file |',
      '| 1 | 0 | file |',
      '| 1 | 1 | file |',
      '| 1 | 2 | memory |',
      '| 2 | 0 | memory |',
      '| 2 | 1 | file |',
      '| 2 | 2 | memory |',
      '| 3 | any | memory |',
    ].join('\n');
    const question = new Question(
      'If SQLite was compiled with SQLITE_TEMP_STORE=2 and I set PRAGMA temp_store to 1, where do temporary tables go?',
    );
    const a = composeExtractiveAnswer(question, [searchHit('doc_s', settings)]);
    // Every row holds "1" and "2" somewhere: only the binding of value to column tells them apart.
    expect(a.answer).toBe(
      'SQLITE_TEMP_STORE: 2; PRAGMA temp_store: 1; Storage used for TEMP tables and indices: file [1]',
    );
  });

  it('reads a box of one row (a note), and a row longer than a quote, sentence by sentence', () => {
    const note = [
      '| [Note] | Note |',
      '| --- | --- |',
      '| [Note] | Addresses written with colons are IPv6 addresses. The broadband router usually performs NAT for the local network. |',
    ].join('\n');
    const a = composeExtractiveAnswer(new Question('What performs NAT for the local network?'), [
      searchHit('doc_b', note),
    ]);
    expect(a.answer).toBe('The broadband router usually performs NAT for the local network. [1]');

    // A FAQ laid out as a table: an answer of paragraphs in a cell is prose, not a row to quote whole.
    const filler =
      'Memory kept in a pool is given back to the system when the program exits normally. '.repeat(6);
    const faq = [
      '| Question | Answer |',
      '| --- | --- |',
      `| Why is memory still reachable? | ${filler}The pools of the C++ library are never freed at exit. |`,
      '| How do I suppress errors? | Write a suppressions file and pass it with --suppressions. |',
    ].join('\n');
    const b = composeExtractiveAnswer(new Question('Which pools are never freed at exit?'), [
      searchHit('doc_q', faq),
    ]);
    expect(b.answer).toBe('The pools of the C++ library are never freed at exit. [1]');
  });
});
