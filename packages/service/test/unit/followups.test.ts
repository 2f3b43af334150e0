import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer } from '../../src/answers/extractive.js';
import type { ChatMessage } from '../../src/domain/ports.js';
import { borrowedText, isFollowUp } from '../../src/search/follow-up.js';
import { analyseQuestion } from '../../src/search/question.js';
import { languageFor } from '../../src/text/language.js';
import { FIREWALL_AND_PRINTING } from '../support/follow-up-note.js';
import { searchHit } from '../support/hits.js';

/**
 * Follow-up questions (issue 41, docs/decisions/0026-follow-up-questions.md): a question that refers
 * back borrows the earlier user turns' words, which choose among passages and sentences without
 * being quoted for their own sake; a question that stands alone is answered as without history.
 */

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

/** The question as the service analyses it, in a workspace of one language (no detector). */
const asked = (q: string, language: string, history?: ChatMessage[]) =>
  analyseQuestion({}, q, { language, languages: [language] }, false, { history });

const answer = async (
  q: string,
  language: string,
  hits: ReturnType<typeof searchHit>[],
  history?: ChatMessage[],
) => composeExtractiveAnswer(await asked(q, language, history), hits);

// The reported case: one note, two sections, one passage.
const NOTE = FIREWALL_AND_PRINTING;
const CUPS = 'Printers are added in the CUPS web interface at port 631.';
const ENABLE = 'To enable it, run ufw enable as root';

describe('the firewall and printing note', () => {
  const hits = [searchHit('note', NOTE)];
  const history = [user('What does the firewall block by default?'), assistant(`The firewall blocks… [1]`)];

  it('answers the follow-up with the enabling sentence, without the printing one', async () => {
    const a = await answer('How do I enable it?', 'en', hits, history);
    expect(a.kind).toBe('extractive');
    expect(a.answer).toContain(ENABLE);
    expect(a.answer).not.toContain(CUPS);
  });

  it('without history answers as it did: the how-to runs on into the next section', async () => {
    const a = await answer('How do I enable it?', 'en', hits);
    expect(a.answer).toContain(ENABLE);
    expect(a.answer).toContain(CUPS);
  });

  it('borrows from the user turns only, the most recent first', async () => {
    const q = await asked('How do I enable it?', 'en', [
      user('How are printers added?'),
      assistant('Printers are added in the CUPS web interface at port 631. [1]'),
      user('What does the firewall block by default?'),
      assistant('The firewall blocks all incoming connections by default. [1]'),
    ]);
    expect(q.borrowed).toBe('What does the firewall block by default?');
    // The answerer's terms stay the question's; retrieval reads the borrowed ones with them.
    expect(q.terms()).toEqual(['enabl']);
    expect(q.borrowedTerms()).toEqual(['firewal', 'block', 'default']);
    expect(q.indexTerms(q.language).some((t) => t.startsWith('firewal'))).toBe(true);
    expect(q.indexTerms(q.language).some((t) => t.startsWith('printer'))).toBe(false);
  });
});

describe('what a follow-up asks the index for', () => {
  it("the earlier turn's content words it lacks, each once, not how that turn asked", async () => {
    const q = await asked('Which keys switch from the graphical desktop to it?', 'en', [
      user('Is there a text login besides the graphical desktop?'),
    ]);
    const terms = q.indexTerms(q.language);
    // Words both turns use count once, as in a question that named its subject itself.
    expect(terms.filter((t) => t === 'desktop')).toHaveLength(1);
    expect(terms.filter((t) => t === 'graphic')).toHaveLength(1);
    expect(terms).toEqual(expect.arrayContaining(['text', 'login']));
    // "Is there": the earlier turn's stop words, which say nothing of what it was about.
    expect(terms).not.toContain('there');
  });

  it("in French: after the question's own terms, only debsums and its turn's content words", async () => {
    const q = await asked(
      'Est-ce que cela suffit pour savoir si un pirate a modifié mes fichiers système ?',
      'fr',
      [user('À quoi sert debsums ?')],
    );
    const own = q.language.indexTerms(q.text);
    const terms = q.indexTerms(q.language);
    expect(terms.slice(0, own.length)).toEqual(own);
    // Not "à" (a stop word the index keeps: "a" after folding), nor a word the question has.
    expect(terms.slice(own.length)).toEqual(['quoi', 'sert', 'debsum']);
  });
});

// Two passages that both say how to enable something: the earlier question tells which is meant.
const cases: {
  language: string;
  printing: string;
  firewall: string;
  first: string;
  followUp: string;
}[] = [
  {
    language: 'en',
    printing: 'To enable printer sharing, run cupsctl --share-printers.',
    firewall: 'To enable the firewall, run ufw --force enable.',
    first: 'What does the firewall block by default?',
    followUp: 'How do I enable it?',
  },
  {
    language: 'de',
    printing: 'Um die Druckerfreigabe zu aktivieren, führen Sie cupsctl --share-printers aus.',
    firewall: 'Um die Firewall zu aktivieren, führen Sie ufw --force enable aus.',
    first: 'Was blockiert die Firewall standardmäßig?',
    followUp: 'Wie aktiviere ich diese?',
  },
  {
    language: 'fr',
    printing: "Pour activer le partage d'imprimantes, lancez cupsctl --share-printers.",
    firewall: 'Pour activer le pare-feu, lancez ufw --force enable.',
    first: 'Que bloque le pare-feu par défaut ?',
    followUp: "Et pour l'activer ?",
  },
  {
    language: 'es',
    printing: 'Para activar el uso compartido de impresoras, ejecute cupsctl --share-printers.',
    firewall: 'Para activar el cortafuegos, ejecute ufw --force enable.',
    first: '¿Qué bloquea el cortafuegos por defecto?',
    followUp: '¿Cómo puedo activarlo?',
  },
  {
    language: 'ja',
    printing: 'プリンター共有を有効にするには cupsctl --share-printers を実行します。',
    firewall: 'ファイアウォールを有効にするには ufw --force enable を実行します。',
    first: 'ファイアウォールはデフォルトで何をブロックしますか？',
    followUp: 'それを有効にするにはどうすればいいですか？',
  },
  {
    language: 'zh',
    printing: '要启用打印机共享，请运行 cupsctl --share-printers。',
    firewall: '要启用防火墙，请运行 ufw --force enable。',
    first: '防火墙默认会阻止什么？',
    followUp: '怎么启用它？',
  },
];

describe('follow-ups in each language', () => {
  for (const c of cases) {
    // Both passages hold the question's words and score alike; the printing one comes first.
    const hits = [
      searchHit('printing', c.printing, { language: c.language }),
      searchHit('firewall', c.firewall, { language: c.language }),
    ];

    it(`${c.language}: "${c.followUp}" after "${c.first}" quotes the firewall's sentence alone`, async () => {
      const alone = await answer(c.followUp, c.language, hits);
      // Without it, the printing passage's sentence answers (or, French, the question is declined).
      expect(alone.answer.includes(c.firewall) && !alone.answer.includes(c.printing)).toBe(false);
      const a = await answer(c.followUp, c.language, hits, [user(c.first)]);
      expect(a.kind).toBe('extractive');
      expect(a.answer).toContain(c.firewall);
      expect(a.answer).not.toContain(c.printing);
    });
  }
});

describe('the decision to answer a follow-up', () => {
  const hits = [
    searchHit('firewall', 'Pour activer le pare-feu, lancez ufw --force enable.', { language: 'fr' }),
    searchHit('printing', "Les imprimantes sont ajoutées dans l'interface web de CUPS, au port 631.", {
      language: 'fr',
      score: 0.5,
    }),
  ];
  // How many of the workspace's 2,000 passages hold each term: "comment" is not one of its words.
  const stats = {
    rows: 2000,
    counts: new Map([
      ['fr:comment', 0],
      ['fr:activ', 60],
      ['fr:bloqu', 15],
      ['fr:par', 40],
      ['fr:feu', 12],
      ['fr:defaut', 300],
    ]),
  };

  it('answers it when, read with its subject, the passages answer it', async () => {
    const q = "Comment l'activer ?";
    const alone = composeExtractiveAnswer(await asked(q, 'fr'), hits, undefined, { stats });
    expect(alone.kind).toBe('declined');
    const history = [user('Que bloque le pare-feu par défaut ?')];
    const a = composeExtractiveAnswer(await asked(q, 'fr', history), hits, undefined, { stats });
    expect(a.kind).toBe('extractive');
    expect(a.answer).toContain('Pour activer le pare-feu');
  });

  it('declines it when the workspace holds neither its words nor its subject', async () => {
    const printing = [searchHit('printing', NOTE.split('# Printing')[1]!)];
    const a = await answer('How do I enable it?', 'en', printing, [
      user('What does the VPN tunnel encrypt?'),
    ]);
    expect(a.kind).toBe('declined');
  });
});

describe('a question that stands alone', () => {
  it('is answered as without history, whatever came before', async () => {
    const hits = [searchHit('note', NOTE)];
    const history = [user('How do I configure the keyboard layout?'), assistant('Run dpkg-reconfigure. [1]')];
    for (const q of [
      'What does the firewall block by default?',
      'Which port does the CUPS web interface use?',
    ]) {
      const question = await asked(q, 'en', history);
      expect(question.borrowed).toBe('');
      expect(question.indexTerms(question.language)).toEqual(
        (await asked(q, 'en')).indexTerms(question.language),
      );
      expect(await answer(q, 'en', hits, history)).toEqual(await answer(q, 'en', hits));
    }
  });
});

describe('what refers back', () => {
  const followUps: [string, string][] = [
    ['en', 'How do I enable it?'],
    ['en', 'And for the printer?'],
    ['en', 'What about SSH?'],
    ['en', 'Why?'],
    ['de', 'Wie aktiviere ich es?'],
    ['de', 'Und für den Drucker?'],
    ['de', 'Wo steht das?'],
    ['de', 'Welche Optionen gibt es dafür?'],
    ['fr', 'Comment le configurer ?'],
    ['fr', 'Et pour l’imprimante ?'],
    ['fr', 'À quoi sert cela ?'],
    ['es', '¿Cómo lo activo?'],
    ['es', '¿Y para la impresora?'],
    ['es', '¿Para qué sirve eso?'],
    ['it', 'Come si attiva questo?'],
    ['it', 'E per la stampante?'],
    ['pt', 'Como ativá-lo?'],
    ['pt', 'E para a impressora?'],
    ['nl', 'Hoe schakel ik het in?'],
    ['nl', 'En voor de printer?'],
    ['ja', 'それはどう設定しますか？'],
    ['ja', 'プリンターの場合は？'],
    ['zh', '它默认监听哪个端口？'],
    ['zh', '那打印机呢？'],
  ];
  for (const [code, q] of followUps)
    it(`${code}: "${q}" refers back`, () => expect(isFollowUp(q, languageFor(code))).toBe(true));

  const standalone: [string, string][] = [
    ['en', 'Which port does the CUPS web interface use?'],
    ['de', 'Gibt es ein Werkzeug für Sicherungen?'],
    ['de', 'Wie installiere ich das Paket apt-file?'],
    ['fr', "Qu'est-ce que le paquet apt-file ?"],
    ['fr', 'Y a-t-il un outil de sauvegarde ?'],
    ['es', '¿Qué puerto usa la interfaz web de CUPS?'],
    ['ja', 'CUPS のウェブインターフェースはどのポートを使いますか？'],
    ['zh', '我应该用什么命令安装软件包？'],
  ];
  for (const [code, q] of standalone)
    it(`${code}: "${q}" stands alone`, () => {
      expect(isFollowUp(q, languageFor(code))).toBe(false);
      expect(borrowedText(q, languageFor(code), [user('What does the firewall block?')])).toBe('');
    });
});
