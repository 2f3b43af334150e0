/**
 * How questions are asked in each language the answerer knows: which ask for a value ("how many",
 * "wie viele", "多少"), which for something to type or a place ("which command", "welcher Befehl",
 * "哪个命令"), the words that write a number, the words that start a sentence pointing back at the one
 * before, and the sentence that declines. A language without rules here gets numbers by their
 * digits only and the English decline.
 */

export interface QuestionRules {
  /** Questions that want a value: a number, a size, a default, a limit. */
  value: RegExp;
  /** Questions that want something to type or a place: a command, a file, an option, how to do it. */
  identifier: RegExp;
  /** Numbers written as words (digits always count). */
  numberWords: RegExp;
  /** Words a sentence names a typed thing with ("the htpasswd command", "der Befehl htpasswd"). */
  namedThings: string[];
  /**
   * Where the name stands: before the word only ("the htpasswd command"), on either side ("der
   * Befehl htpasswd", "la commande ls"), or either side without a space (Chinese, Japanese).
   */
  namedThingOrder: 'name-first' | 'either' | 'unspaced';
  /** A sentence that starts by pointing back at the one before it ("It…", "Dies…", "これは…"). */
  refersBack: RegExp;
  /** Questions that ask for a reason ("why", "warum", "为什么"): the answerer quotes what follows the subject. */
  why: RegExp;
  /** The answer when the workspace holds no answer. */
  decline: string;
  /**
   * Words that only ask ("how many", "wie lange", "combien", "どのくらい"): left out of the words a
   * passage must share with the question, as stop words are (global).
   */
  asking: RegExp;
}

/*
 * The patterns below are built at run time from each language's words, so the regex lint
 * (eslint.regexp.config.mjs) cannot read them: test/unit/hostile-patterns.test.ts runs every one of
 * every language on 100,000 characters of hostile text and fails on one that is slow.
 */

/** Whole words of a space-separated language: boundaries that know letters beyond ASCII (`\b` does not). */
function wordsOf(alternatives: string[], anchorStart = false): RegExp {
  const body = alternatives.join('|');
  return new RegExp(`${anchorStart ? '^' : '(?<![\\p{L}\\p{N}])'}(?:${body})(?![\\p{L}\\p{N}])`, 'iu');
}

/** Phrases of a language written without spaces: any occurrence counts. */
function phrasesOf(alternatives: string[], anchorStart = false): RegExp {
  return new RegExp(`${anchorStart ? '^' : ''}(?:${alternatives.join('|')})`, 'u');
}

const ENGLISH_NUMBERS = [
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen',
  'seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand',
  'million billion dozen once twice thrice half double triple quarter daily weekly monthly hourly',
  'yearly annually',
].join(' ');

const english: QuestionRules = {
  value: wordsOf([
    'how (?:many|much|long|big|large|old|often|far|fast|quickly|soon|high|low|small|wide|deep|frequently)',
    '(?:what|which) (?:size|percentage|share|number|amount|year|time|date|level|limit|value|speed|length)',
    'maximum|minimum|max|min|limit|default|number of|at most|at least|up to|by default',
  ]),
  identifier: wordsOf([
    '(?:which|what) (?:commands?|files?|directory|folder|path|options?|flag|settings?|parameter|variable|package|program|tool|utility|function|method|module|name|syntax)',
    '(?:what|which) (?:do|should|can|must) (?:i|you|we) (?:type|run|use|write|put|set|add|call)',
    'where (?:do|can|should|is|are|does|must)',
    'how (?:do|can|should|would|could) (?:i|you|we|one|someone)',
    'name of',
  ]),
  numberWords: wordsOf(ENGLISH_NUMBERS.split(' ')),
  namedThings:
    'command program package option parameter variable tool utility file module function setting'.split(' '),
  namedThingOrder: 'name-first',
  refersBack: wordsOf(
    [
      'it',
      'this',
      'these',
      'they',
      'that',
      'those',
      'such',
      'in such',
      'in this',
      'in that',
      'thus',
      'therefore',
      'however',
      'otherwise',
    ],
    true,
  ),
  why: wordsOf(['why', 'how come']),
  decline: 'I could not find an answer to that in this workspace.',
  asking: /\bhow (?:many|much|long|often|far|soon|big|large|old|frequently)\b/gi,
};

const german: QuestionRules = {
  value: wordsOf([
    'wie (?:viele?|lange|groß|gross|oft|weit|schnell|alt|hoch|klein|breit|tief)',
    'wieviele?',
    'welche[rsnm]? (?:größe|grösse|anzahl|zahl|zeit|dauer|stufe|grenze|wert|länge|priorität)',
    'maximal|minimal|höchstens|mindestens|standardmäßig|standardwert|voreingestellt|vorgabe|grenze|limit|anzahl',
  ]),
  identifier: wordsOf([
    'welche[rsnm]? (?:befehle?|kommandos?|dateien|datei|verzeichnis|ordner|pfad|optionen|option|schalter|einstellung|parameter|variable|paket|programm|werkzeug|name|syntax)',
    'wo (?:finde|liegt|liegen|steht|stehen|ist|sind|kann|muss|speichert|legt)',
    'wie (?:kann|muss|soll|könnte) (?:ich|man)',
    'wie (?:richte|stelle|installiere|starte|ändere|aktiviere|deaktiviere|finde|prüfe|lösche|erstelle) ich',
    'was (?:muss|soll) (?:ich|man) (?:eingeben|tippen|ausführen|aufrufen)',
    'wie hei(?:ß|ss)t',
  ]),
  // German writes numbers below a million as one word ("dreiundzwanzig", "zweihundert"): the
  // patterns take every cardinal, not a list of the ones that happened to come up.
  numberWords: wordsOf([
    '(?:eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf)',
    '(?:drei|vier|fünf|sech|sieb|acht|neun)zehn',
    '(?:(?:ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun)und)?(?:zwanzig|dreißig|vierzig|fünfzig|sechzig|siebzig|achtzig|neunzig)',
    '(?:ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zwölf)?(?:hundert|tausend)\\p{L}*',
    'millionen|million|milliarden|milliarde|einmal|zweimal|dreimal|halb|doppelt|täglich|wöchentlich|monatlich|stündlich|jährlich',
  ]),
  namedThings:
    'befehl kommando programm paket option parameter variable werkzeug datei modul funktion einstellung'.split(
      ' ',
    ),
  namedThingOrder: 'either',
  refersBack: wordsOf(
    [
      'es',
      'dies',
      'diese[rsnm]?',
      'das',
      'sie',
      'er',
      'damit',
      'dadurch',
      'daher',
      'deshalb',
      'jedoch',
      'sonst',
    ],
    true,
  ),
  why: wordsOf(['warum', 'weshalb', 'wieso', 'weswegen']),
  decline: 'Dazu habe ich in diesem Arbeitsbereich keine Antwort gefunden.',
  asking: /(?<![\p{L}])(?:wie (?:viele?|lange|oft|weit|groß|gross)|wieviele?)(?![\p{L}])/giu,
};

const french: QuestionRules = {
  value: wordsOf([
    'combien',
    'quel(?:le)?s? (?:taille|valeur|limite|durée|nombre|délai|niveau|longueur|priorité)',
    'par défaut|au maximum|au minimum|maximum|minimum|maximale?|minimale?|limite|nombre de',
  ]),
  identifier: wordsOf([
    'quel(?:le)?s? (?:commandes?|fichiers?|répertoires?|dossiers?|chemins?|options?|paramètres?|variables?|paquets?|programmes?|outils?|noms?|syntaxe)',
    'où',
    'comment (?:puis-je|peut-on|dois-je|doit-on|faire|on|est-ce|je)',
    'que (?:dois-je|faut-il) (?:taper|saisir|exécuter|lancer)',
    'comment s.appelle',
  ]),
  // Every cardinal word: compounds ("dix-sept", "quatre-vingts") are hyphenated, so their parts match.
  numberWords: wordsOf(
    'un une deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize vingts? trente quarante cinquante soixante septante huitante octante nonante cents? mille millions? milliards? fois demie? double quotidien quotidienne hebdomadaire mensuel mensuelle annuel annuelle horaire'.split(
      ' ',
    ),
  ),
  namedThings:
    'commande programme paquet option paramètre variable outil fichier module fonction réglage'.split(' '),
  namedThingOrder: 'either',
  refersBack: wordsOf(
    [
      'il',
      'elle',
      'ils',
      'elles',
      'ce',
      'cela',
      'ceci',
      'cette',
      'ces',
      'ainsi',
      'donc',
      'cependant',
      'sinon',
    ],
    true,
  ),
  why: wordsOf(['pourquoi']),
  decline: "Je n'ai pas trouvé de réponse à cette question dans cet espace de travail.",
  asking: /(?<![\p{L}])combien(?: de| d['’])?(?![\p{L}])/giu,
};

const spanish: QuestionRules = {
  value: wordsOf([
    'cuánt[oa]s?|cuant[oa]s?',
    'qué (?:tamaño|valor|límite|número|nivel|longitud|prioridad|duración)',
    'por defecto|predeterminad[oa]s?|máximo|mínimo|máxima|mínima|límite|número de|como máximo|como mínimo',
  ]),
  identifier: wordsOf([
    '(?:qué|cuál(?:es)? (?:es|son) (?:el|la|los|las)) (?:comandos?|archivos?|ficheros?|directorios?|carpetas?|rutas?|opciones?|opción|parámetros?|variables?|paquetes?|programas?|herramientas?|nombres?|sintaxis)',
    'dónde|donde',
    'cómo (?:puedo|se|hago|debo|podemos|configuro|instalo|activo|desactivo|cambio|compruebo|creo|borro|elimino)',
    'qué (?:debo|tengo que|hay que) (?:escribir|ejecutar|teclear)',
    'cómo se llama',
  ]),
  // Every cardinal word: Spanish writes 16–29 and the hundreds as one word ("dieciséis",
  // "veintitrés", "quinientos").
  numberWords: wordsOf([
    'uno|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince',
    '(?:dieci|veinti)(?:uno|una|ún|dós|trés|cuatro|cinco|séis|seis|siete|ocho|nueve)',
    'veinte|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa',
    'cien|ciento|(?:dos|tres|cuatro|seis|sete|ocho|nove)?cient[oa]s|quinient[oa]s',
    'mil|millón|millones|vez|veces|medio|doble|diario|diaria|semanal|mensual|anual',
  ]),
  namedThings:
    'comando orden programa paquete opción parámetro variable herramienta archivo fichero módulo función ajuste'.split(
      ' ',
    ),
  namedThingOrder: 'either',
  refersBack: wordsOf(
    [
      'esto',
      'esta',
      'este',
      'estos',
      'estas',
      'eso',
      'ello',
      'así',
      'por lo tanto',
      'sin embargo',
      'de lo contrario',
    ],
    true,
  ),
  why: wordsOf(['por qu[eé]', 'porqu[eé]']),
  decline: 'No encontré una respuesta a eso en este espacio de trabajo.',
  asking: /(?<![\p{L}])cu[aá]nt[oa]s?(?![\p{L}])/giu,
};

const japanese: QuestionRules = {
  value: phrasesOf([
    'いくつ',
    '何(?:個|日|秒|分|時間|回|バイト|番|年|ヶ月|か月|週間|行|文字|台|人|種類|MB|GB|KB)',
    'どのくらい|どれくらい|どれぐらい|どのぐらい|どの程度|どれだけ',
    'デフォルト|既定|初期値|最大|最小|上限|下限|サイズ|ポート番号|バージョン',
  ]),
  // The things to type or look for when the question asks which one ("どのコマンド", "ファイル名は"): a
  // bare "ファイル" is the topic of half the questions, and favoured sentences holding any path.
  identifier: phrasesOf([
    '(?:どの|何の|なんの|どんな)(?:コマンド|ファイル|ディレクトリ|フォルダ|パス|オプション|パッケージ|プログラム|ツール|設定|変数|パラメータ)',
    '(?:コマンド|ファイル|ディレクトリ|フォルダ|パス|オプション|パッケージ|プログラム|ツール|設定|変数|パラメータ)(?:名|の名前)?(?:は何|はどれ|はどこ)',
    'どこ|どうやって|どうすれば|どうしたら|どのように|方法|手順|名前|何という',
  ]),
  numberWords: phrasesOf(['[一二三四五六七八九十百千万億]', '毎日|毎週|毎月|毎時|毎年|半分|倍']),
  namedThings: [
    'コマンド',
    'プログラム',
    'パッケージ',
    'オプション',
    'ファイル',
    'ツール',
    'サービス',
    'デーモン',
  ],
  namedThingOrder: 'unspaced',
  refersBack: phrasesOf(['これ|それ|この|その|そのため|したがって|ただし|しかし|また'], true),
  why: phrasesOf(['なぜ|何故|どうして|なんで']),
  decline: 'このワークスペースには、その質問への回答が見つかりませんでした。',
  asking: /どのくらい|どれくらい|どれぐらい|どのぐらい|どの程度|いくつ/gu,
};

const chinese: QuestionRules = {
  value: phrasesOf([
    '多少|几个|几天|几秒|几次|几种|多久|多长|多大|多少个|多频繁',
    '默认|缺省|最大|最小|上限|下限|大小|端口|版本|数量',
  ]),
  // As in Japanese: the thing asked for ("哪个命令", "参数是什么"), not a bare "文件" that is the topic.
  identifier: phrasesOf([
    '(?:哪个|哪一个|哪些|哪种|哪一类|哪类|什么|啥)(?:样的)?(?:命令|文件|目录|文件夹|路径|选项|参数|变量|软件包|包|程序|工具|服务|按键|名字|名称|语法)',
    '(?:命令|文件|目录|文件夹|路径|选项|参数|变量|软件包|程序|工具|服务|按键|名字|名称|语法)(?:是|叫|在)(?:什么|哪个|哪里|哪儿)',
    '哪里|在哪|何处|怎么|如何|怎样|用什么|叫什么',
  ]),
  numberWords: phrasesOf(['[一二三四五六七八九十百千万亿两]', '每天|每周|每月|每小时|每年|一半|两倍']),
  namedThings: ['命令', '程序', '软件包', '选项', '文件', '工具', '服务', '守护进程'],
  namedThingOrder: 'unspaced',
  refersBack: phrasesOf(['这|它|此|该|因此|所以|但是|否则|然而'], true),
  why: phrasesOf(['为什么|为何|为啥|何以']),
  decline: '在此工作区中找不到该问题的答案。',
  asking: /多少|多长时间|多久|几个/gu,
};

/** Languages whose questions are only recognised by their digits, but which decline in their own words. */
const declineOnly = (decline: string): QuestionRules => ({
  value: /(?!)/,
  identifier: /(?!)/,
  numberWords: /(?!)/,
  namedThings: [],
  namedThingOrder: 'name-first',
  refersBack: /(?!)/,
  why: /(?!)/,
  decline,
  asking: /(?!)/g,
});

export const QUESTION_RULES: Record<string, QuestionRules> = {
  en: english,
  de: german,
  fr: french,
  es: spanish,
  ja: japanese,
  zh: chinese,
  it: declineOnly('Non ho trovato una risposta a questa domanda in questo spazio di lavoro.'),
  pt: declineOnly('Não encontrei uma resposta para isso neste espaço de trabalho.'),
  nl: declineOnly('Ik heb daar in deze werkruimte geen antwoord op gevonden.'),
  ru: declineOnly('Я не нашёл ответа на этот вопрос в этом рабочем пространстве.'),
  pl: declineOnly('Nie znalazłem odpowiedzi na to pytanie w tym obszarze roboczym.'),
  sv: declineOnly('Jag hittade inget svar på det i den här arbetsytan.'),
};

/** Rules for a language: its own, or (questions by digits only) the English decline. */
export function questionRules(code: string): QuestionRules {
  return QUESTION_RULES[code] ?? { ...declineOnly(english.decline) };
}
