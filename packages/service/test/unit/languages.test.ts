import { describe, expect, it } from 'vitest';
import { EldDetector } from '../../src/adapters/language/eld.js';
import { answerQuestion } from '../../src/answers/answer.js';
import type { Principal } from '../../src/domain/types.js';
import { chunkText } from '../../src/processing/chunker.js';
import { indexRowsOf } from '../../src/search/indexing.js';
import { documentLanguage, questionLanguage } from '../../src/text/detection.js';
import { ENGLISH, languageFor } from '../../src/text/language.js';
import { tokenBounds, tokenize } from '../../src/text/tokens.js';
import { MemorySearchIndex } from '../support/fake-index.js';

/** Languages (issue 24): reading each language's words and sentences, and answering in it. */

const principal: Principal = {
  accountId: 'acc',
  scopes: new Set(['search']),
  keyId: 'key',
  userId: undefined,
  role: undefined,
  actor: 'dsk_test',
};
const detector = new EldDetector();

/**
 * A workspace of these documents in memory, indexed as the worker indexes them (each document in its
 * detected language), and the answer operation over it.
 */
async function workspaceOf(documents: Record<string, string>) {
  const index = new MemorySearchIndex();
  const languages = new Set<string>();
  for (const [name, text] of Object.entries(documents)) {
    const language = await documentLanguage(text, 'auto', detector);
    languages.add(language.code);
    const rows = indexRowsOf(
      { id: name, filename: `${name}.md`, sourceUrl: null },
      { mediaType: 'text/markdown', title: null },
      chunkText(text, name, language),
      language,
    );
    await index.replaceDocument('ws', name, rows);
  }
  const deps = {
    workspaces: {
      searchContext: async () => ({ language: 'auto', languages: [...languages], visibility: undefined }),
    },
    documents: {
      liveDocuments: async (_w: string, ids: string[]) =>
        new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
    },
    index,
    languages: detector,
  };
  return (q: string) => answerQuestion(deps, principal, { workspaceId: 'ws', q, topK: 8 });
}

describe('reading words', () => {
  it('cuts Chinese into dictionary words and Japanese into pairs of characters, and keeps a Latin name whole', () => {
    expect(
      languageFor('zh')
        .tokens('如何安装软件包')
        .map((t) => t.word),
    ).toEqual(['如何', '安装', '软件', '包']);
    expect(
      languageFor('ja')
        .tokens('パッケージを')
        .map((t) => t.word),
    ).toEqual(['パッ', 'ッケ', 'ケー', 'ージ', 'ジを']);
    expect(tokenize('libtasn1は何').map((t) => t.word)).toEqual(['libtasn1', 'は', '何']);
  });

  it("stems and folds each language's words, and splits French elisions", () => {
    const de = languageFor('de');
    expect(de.term('installationen')).toBe(de.term('installation'));
    expect(de.term('größe')).toBe(de.term('grösse'));
    expect(
      languageFor('fr')
        .tokens("l'ordinateur")
        .map((t) => t.word),
    ).toEqual(['l', 'ordinateur']);
    expect(languageFor('fr').contentTerms("l'ordinateur")).toEqual([languageFor('fr').term('ordinateur')]);
    expect(languageFor('es').term('paquetes')).toBe(languageFor('es').term('paquete'));
    // Full-width letters read as the same word.
    expect(tokenize('ｓｕｄｏ').map((t) => t.word)).toEqual(['sudo']);
  });

  it("finds each word where tokenize does without making the words (tokenBounds), in every language's options", () => {
    // Texts drawn from pieces that meet at every kind of boundary: apostrophes before, inside and
    // after words, digits after an elision, accents, Chinese and Japanese runs against Latin letters,
    // full-width letters, a letter outside the BMP, punctuation that is and is not ASCII.
    const pieces = [
      "don't",
      "l'heure",
      "rock'n'roll",
      "'quoted'",
      "abc'de5",
      'it’s',
      'café',
      'Größe',
      'x86_64',
      '1.5',
      'naïve',
      '–',
      '—',
      ' ',
      '  ',
      '\n',
      ',',
      '.',
      '(',
      ')',
      '/',
      "'",
      '’',
      'libtasn1は',
      '何ですか',
      'パッケージを',
      '安装软件包',
      'ｓｕｄｏ',
      '𝐀bc',
      'e\u0301t\u00e9',
      'über-',
      "o'",
      'ß',
      'ǅ',
      '٣',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const options = [
      {},
      { apostrophes: 'split' as const },
      { cjk: 'words' as const },
      { cjk: 'bigrams' as const, cjkLocale: 'ja' as const },
    ];
    let compared = 0;
    for (let n = 0; n < 2000; n++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join('');
      for (const o of options) {
        expect(tokenBounds(text, o), text).toEqual(tokenize(text, o).flatMap((t) => [t.start, t.end]));
        compared++;
      }
    }
    expect(compared).toBe(8000);
    expect(tokenBounds("don't stop", { apostrophes: 'split' })).toEqual([0, 3, 4, 5, 6, 10]);
  });

  it('ends sentences at Chinese and Japanese full stops, and not after German abbreviations', () => {
    const zh = languageFor('zh');
    const text = '运行级别是多少？默认是五。之后重启。';
    expect(zh.sentenceSpans(text).map(([a, b]) => text.slice(a, b))).toEqual([
      '运行级别是多少？',
      '默认是五。',
      '之后重启。',
    ]);
    const de = languageFor('de');
    const german = 'Das gilt z. B. für Drucker. Danach ist es anders.';
    expect(de.sentenceSpans(german).map(([a, b]) => german.slice(a, b))).toEqual([
      'Das gilt z. B. für Drucker.',
      'Danach ist es anders.',
    ]);
  });

  it('tells the language of a document, and of a short question by the workspace it is asked in', async () => {
    const german =
      'Die Paketverwaltung von Debian installiert Programme und hält sie aktuell. Jedes Paket hat Abhängigkeiten.';
    expect((await documentLanguage(german, 'auto', detector)).code).toBe('de');
    expect((await documentLanguage(german, 'fr', detector)).code).toBe('fr');
    expect(
      (
        await questionLanguage(
          'Wie lange dauert ein Neustart?',
          { language: 'auto', languages: [] },
          detector,
        )
      ).code,
    ).toBe('de');
    // Too short to tell: the workspace's one language.
    expect((await questionLanguage('sudo?', { language: 'auto', languages: ['ja'] }, detector)).code).toBe(
      'ja',
    );
    expect((await questionLanguage('sudo?', { language: 'auto', languages: [] }, detector)).code).toBe('en');
  });
});

describe('answering in the language of the question', () => {
  // Each workspace holds the one passage that answers, beside one about something else.
  const cases = [
    {
      language: 'de',
      documents: {
        neustart:
          'Der Rechner startet nach einem Kernel-Update neu. Ein Neustart dauert auf einem gewöhnlichen Server etwa zwei Minuten.',
        drucker: 'Drucker werden mit CUPS eingerichtet. Die Weboberfläche von CUPS läuft auf Port 631.',
      },
      q: 'Wie lange dauert ein Neustart des Servers?',
      answer: /etwa zwei Minuten/,
      decline: 'Dazu habe ich in diesem Arbeitsbereich keine Antwort gefunden.',
    },
    {
      language: 'fr',
      documents: {
        sauvegarde:
          'La sauvegarde complète du serveur prend environ trois heures. Elle démarre chaque nuit à deux heures du matin.',
        imprimante:
          "Les imprimantes sont configurées avec CUPS. L'interface web de CUPS écoute sur le port 631.",
      },
      q: 'Combien de temps dure la sauvegarde complète du serveur ?',
      answer: /environ trois heures/,
      decline: "Je n'ai pas trouvé de réponse à cette question dans cet espace de travail.",
    },
    {
      language: 'es',
      documents: {
        copia:
          'La copia de seguridad completa del servidor tarda unas tres horas. Empieza cada noche a las dos de la madrugada.',
        impresora: 'Las impresoras se configuran con CUPS. La interfaz web de CUPS escucha en el puerto 631.',
      },
      q: '¿Cuánto tarda la copia de seguridad completa del servidor?',
      answer: /unas tres horas/,
      decline: 'No encontré una respuesta a eso en este espacio de trabajo.',
    },
    {
      language: 'ja',
      documents: {
        backup: 'サーバーの完全バックアップには約三時間かかります。バックアップは毎晩二時に始まります。',
        printer: 'プリンターはCUPSで設定します。CUPSのウェブ画面はポート631で動きます。',
      },
      q: 'サーバーの完全バックアップにはどのくらい時間がかかりますか？',
      answer: /約三時間/,
      decline: 'このワークスペースには、その質問への回答が見つかりませんでした。',
    },
    {
      language: 'zh',
      documents: {
        backup: '服务器的完整备份大约需要三个小时。备份每天晚上两点开始。',
        printer: '打印机使用CUPS配置。CUPS的网页界面在端口631上运行。',
      },
      q: '服务器的完整备份需要多长时间？',
      answer: /大约需要三个小时/,
      decline: '在此工作区中找不到该问题的答案。',
    },
  ];

  for (const c of cases) {
    it(`answers a question in ${languageFor(c.language).name} from its passage, and declines in ${languageFor(c.language).name}`, async () => {
      const ask = await workspaceOf(c.documents);
      const a = await ask(c.q);
      expect(a.kind).toBe('extractive');
      expect(a.answer).toMatch(c.answer);
      expect(a.citations[0]?.text).toMatch(c.answer);
      // A question the workspace does not answer, asked in the same language.
      const off = await ask(
        {
          de: 'Wie viele Urlaubstage bekommen die Angestellten?',
          fr: 'Combien de jours de congés payés ont les employés ?',
          es: '¿Cuántos días de vacaciones tienen los empleados?',
          ja: '社員の有給休暇は何日ですか？',
          zh: '员工有多少天带薪年假？',
        }[c.language]!,
      );
      expect(off).toMatchObject({ kind: 'declined', answer: c.decline, citations: [] });
    });
  }
});

describe("the README's example", () => {
  it('is declined over documents that do not answer it, and a question they answer is answered', async () => {
    // A workspace like the one a new user tried: Valgrind, libtasn1 and zstd documentation.
    const ask = await workspaceOf({
      valgrind:
        'Valgrind is an instrumentation framework for building dynamic analysis tools. The Memcheck tool detects memory errors such as use of uninitialised memory. To run your program under Memcheck, prefix the command line with valgrind --leak-check=yes. This program is free software; you can redistribute it under the terms of the GNU General Public License, and a licence terminated for violation is reinstated if you cease all violation and the copyright holder does not notify you prior to 60 days after the cessation.',
      libtasn1:
        'Libtasn1 is the ASN.1 library used by GnuTLS, p11-kit and some other packages. It was written by Fabio Fontana and Simon Josefsson. The goal of this implementation is to be highly portable and only require an ANSI C89 platform.',
      zstd: 'Zstandard is a fast lossless compression algorithm. The test suite runs with make test; the fuzzer tests run in CI for every pull request. Compression levels range from 1 to 19, and 22 with --ultra.',
    });
    for (const q of ['How many vacation days do employees get?', 'How do I reset my password?']) {
      expect(await ask(q)).toMatchObject({ kind: 'declined', citations: [] });
    }
    const a = await ask('What does libtasn1 do?');
    expect(a.kind).toBe('extractive');
    expect(a.answer).toContain('ASN.1 library');
    expect(ENGLISH.questions.decline).toBe('I could not find an answer to that in this workspace.');
  });
});

describe('Chinese and Japanese questions', () => {
  it('are told by their script when they name something in Latin letters', async () => {
    // eld scores this question English: the Latin name outweighs the kana.
    const english = { language: 'en', languages: ['en'] };
    expect((await questionLanguage('w3mという名前の由来は何ですか？', english, detector)).code).toBe('ja');
    expect((await questionLanguage('Ninja构建系统最主要的设计目标是什么？', english, detector)).code).toBe(
      'zh',
    );
    // Kanji alone read as Japanese where the workspace is written in Japanese and not in Chinese.
    const japanese = { language: 'auto', languages: ['ja', 'en'] };
    expect((await questionLanguage('暗号化設定', japanese, detector)).code).toBe('ja');
    // A Latin question quoting two characters is not one.
    expect(
      (await questionLanguage('What does the word 設定 mean in the manual?', english, detector)).code,
    ).toBe('en');
  });

  it('are Chinese when they name a thing in Latin letters longer than their Han characters', async () => {
    // Counted by letters, "conffile" (8) outweighed "是什么" (3) and the question was read as English:
    // declined in English, and its "几个" no longer asked for a number (docs/decisions/0030).
    const workspace = { language: 'auto', languages: ['zh', 'en'] };
    expect((await questionLanguage('conffile是什么？', workspace, detector)).code).toBe('zh');
    expect((await questionLanguage('System V init一共有几个运行级别？', workspace, detector)).code).toBe(
      'zh',
    );
    // Two Han characters among several Latin words are a quotation, not the question's language.
    expect((await questionLanguage('How do I open 配置文件 in vim?', workspace, detector)).code).toBe('en');
  });

  it('compare Japanese by its kanji and katakana pairs, not the hiragana of its grammar', () => {
    const terms = languageFor('ja').contentTerms('バックアップの設定を変更しますか？');
    expect(terms).toEqual(expect.arrayContaining(['バッ', 'ック', 'クア', 'アッ', 'ップ', '設定', '変更']));
    for (const grammar of ['しま', 'ます', 'すか', 'を変', 'の設', 'プの'])
      expect(terms).not.toContain(grammar);
    // The index keeps every pair: a passage is found by any of them.
    expect(languageFor('ja').indexTerms('変更します')).toEqual(['変更', '更し', 'しま', 'ます']);
  });

  it('are declined when they name in Latin letters what the workspace never mentions', async () => {
    const ask = await workspaceOf({
      web: 'Apacheの設定ファイルは/etc/apache2にあります。サイトを追加するには、sites-availableに設定を置きます。',
      swap: 'スワップ領域はディスク上のメモリです。空きメモリが減ると、カーネルはページをスワップに書き出します。',
    });
    // Every other word is in the first passage; "nginx" is nowhere in the workspace.
    expect(await ask('nginxの設定ファイルにサイトを追加するには？')).toMatchObject({ kind: 'declined' });
    const apache = await ask('Apacheの設定ファイルにサイトを追加するには？');
    expect(apache.kind).toBe('extractive');
    expect(apache.answer).toContain('sites-available');
  });
});
