import { describe, expect, it } from 'vitest';
import { expectedAnswer, satisfies } from '../../src/answers/answer-types.js';
import { composeExtractiveAnswer } from '../../src/answers/extractive.js';
import { Question } from '../../src/search/question.js';
import { languageFor } from '../../src/text/language.js';
import { searchHit } from '../support/hits.js';

const cjkHit = (documentId: string, text: string, language: string, score = 1) =>
  searchHit(documentId, text, { language, score, extension: 'html' });

/**
 * Chinese and Japanese questions answered with the sentence that holds the answer (issue 41), from
 * text written for these tests in the way a manual or a FAQ writes it. Each case failed before
 * docs/decisions/0025-chinese-and-japanese-sentences.md: another sentence of the same passages won.
 */

const zh = languageFor('zh');
const ja = languageFor('ja');

describe('Chinese answers', () => {
  it('answers a why-question with the reason that follows the sentence naming the subject', () => {
    const hits = [
      cjkHit(
        'backup',
        '备份工作可以用 cron 任务自动完成。\n\n' +
          '不要备份 /proc 和 /sys 目录下的伪文件系统。它们是庞大且无用的数据，每次启动时由内核重新生成。\n\n' +
          '备份的数据应该存放在另一块硬盘上。',
        'zh',
      ),
    ];
    const a = composeExtractiveAnswer(
      new Question('为什么备份的时候不要备份/proc和/sys？', { language: zh }),
      hits,
    );
    expect(a.kind).toBe('extractive');
    expect(a.answer).toContain('它们是庞大且无用的数据');
    // The same passage asked what to leave out, not why: the reason is not appended.
    const what = composeExtractiveAnswer(
      new Question('备份的时候哪些目录不要备份？', { language: zh }),
      hits,
    );
    expect(what.answer).not.toContain('它们是庞大');
  });

  it('answers a FAQ question from the answer under it, which does not repeat its words', () => {
    const faq = [
      '## 9.3. 如何自动升级系统？',
      '',
      '可以使用 cron-apt 工具，它通过 cron 任务定期下载新的软件包。',
      '',
      '## 9.4. 如何删除不再需要的旧内核？',
      '',
      '先确认正在运行的版本，再执行 dpkg --purge linux-image-NNN 即可。',
      '',
      '## 9.5. 旧内核的文件放在哪里？',
      '',
      '旧内核的映像文件位于 /boot 目录，删除内核软件包时会一并删除。',
    ].join('\n');
    const a = composeExtractiveAnswer(new Question('旧的内核不想要了，怎么删除？', { language: zh }), [
      cjkHit('faq', faq, 'zh'),
    ]);
    expect(a.kind).toBe('extractive');
    expect(a.answer).toContain('dpkg --purge linux-image-NNN');
    // The FAQ's own question asks; it is never the quote.
    expect(a.answer).not.toContain('如何删除不再需要的旧内核');
  });

  it('reads "which file" as asking for a name, and a file that is only the topic not', () => {
    // A bare "文件" made every question about files want a path, and the sentence holding any path won.
    expect(expectedAnswer('在/tmp这种所有人都能写的目录里，为什么别人删不掉我的文件？', zh)).toBe('none');
    expect(expectedAnswer('安装软件包的历史记录保存在哪个文件里？', zh)).toBe('identifier');
    expect(expectedAnswer('表示参数个数的变量是什么？', zh)).toBe('identifier');
    expect(expectedAnswer('怎样让程序崩溃时生成core dump文件？', zh)).toBe('identifier');
    expect(expectedAnswer('ファイルのctimeは作成時刻ですか？', ja)).toBe('none');
    expect(expectedAnswer('どの設定項目を使いますか？', ja)).toBe('identifier');
    expect(expectedAnswer('設定ファイルはどこですか？', ja)).toBe('identifier');
  });

  it('answers a question about a quoted mark with the sentence that quotes it', () => {
    // "u" and "*" are no terms: the question's other words chose a sentence about udeb in general
    // (docs/decisions/0030-chinese-quoted-marks-and-question-kinds.md).
    const udeb = [
      '## udeb 软件包名字里的字母',
      '',
      '一个 udeb 软件包是从 deb 软件包中剥离了一些不必要的内容（例如文档），从而节省空间。',
      '',
      'debian-installer 使用 udeb 作为它的二进制软件包的文件扩展名。',
      '',
      'deb 和 udeb 软件包会共享相同的软件包结构。“u” 表示微小。dpkg 是最底层的工具。',
    ].join('\n');
    const a = composeExtractiveAnswer(new Question('udeb软件包名字里的“u”是什么意思？', { language: zh }), [
      cjkHit('udeb', udeb, 'zh'),
    ]);
    expect(a.kind).toBe('extractive');
    expect(a.answer).toContain('“u” 表示微小');
    const shadow = [
      '## /etc/shadow 里的密码字段',
      '',
      '在引入了 “/etc/shadow” 后，该项被用来说明密码形式。如 shadow(5) 中所述，这个文件中被 “:” 分隔的每项含义如下。',
      '',
      '- 登录名',
      '- 加密后的密码（开头的 “$1$” 表示使用 MD5 加密。“*” 表示无法登录。）',
      '- 最后一次修改密码的时间，其表示从 1970 年 1 月 1 日起的天数',
      '- 密码最短使用期限（天数）',
      '- 密码最长使用期限（天数）',
    ].join('\n');
    const star = composeExtractiveAnswer(
      new Question('/etc/shadow里密码字段是“*”表示什么？', { language: zh }),
      [
        cjkHit('shadow', shadow, 'zh'),
        cjkHit(
          'passwd',
          [
            '“/etc/passwd” 里的密码字段是 “x”，真正的密码保存在 “/etc/shadow” 里。',
            '',
            '“/etc/gshadow” 为 “/etc/group” 提供了与 “/etc/shadow” 相似的功能。',
            '',
            '使用 passwd(1) 修改密码，它会更新 “/etc/shadow” 里的字段。',
            '',
            '只有 root 能读取 “/etc/shadow”，普通用户看不到加密后的密码。',
          ].join('\n'),
          'zh',
          0.8,
        ),
      ],
    );
    expect(star.answer).toContain('“*” 表示无法登录');
  });

  it('reads "which package" as asking for a name, and a name before 工具 as one to type', () => {
    expect(expectedAnswer('最基本的开发环境要装哪个包？', zh)).toBe('identifier');
    expect(expectedAnswer('应该装哪一类软件包？', zh)).toBe('identifier');
    // The word after 工具 is written on without a space; the name before it is still a name.
    expect(satisfies('我们将用 devscripts 工具来演示如何操作。', 'identifier', zh)).toBe(true);
    expect(satisfies('推荐的方式是使用各种包装器工具。', 'identifier', zh)).toBe(false);
  });

  it('quotes the APT option below the sentence that leads up to it', () => {
    const text =
      '如果你想限制 APT 的下载带宽，你应该像下面那样设置 APT 的配置参数。\n\n' +
      '```\nAPT::Acquire::http::Dl-Limit "800";\n```\n\n' +
      'APT 也可以通过代理服务器下载软件包。';
    const a = composeExtractiveAnswer(
      new Question('想限制APT下载时占用的带宽，应该设置哪个参数？', { language: zh }),
      [cjkHit('apt', text, 'zh')],
    );
    expect(a.answer).toContain('APT::Acquire::http::Dl-Limit');
  });

  it('quotes the command a sentence runs into without ending ("请执行" and the block under it)', () => {
    // As the Debian FAQ's HTML reads: the sentence stops where its <pre> begins.
    const text =
      '## 11.5. Debian 系统是如何引导的？\n\n' +
      'Debian 的引导以执行 init 程序为起点。Debian 系统默认使用 systemd 作为 init 的实现。\n\n' +
      '为了控制服务启动的顺序，传统的 System-V 风格的 Unix 系统使用运行级别（runlevel）。' +
      '这一概念在 systemd 中被目标（target）所取代。要显示系统引导时 systemd 的默认目标，请执行\n\n' +
      '```\n\nsystemctl get-default\n```\n\n' +
      '在引导过程中，systemd 会启动默认的目标文件里列出的服务。';
    const a = composeExtractiveAnswer(new Question('怎么查看 systemd 引导时的默认目标？', { language: zh }), [
      cjkHit('faq', text, 'zh'),
    ]);
    expect(a.answer).toContain('请执行 systemctl get-default');
    // A sentence that ends right before a block is not its lead: the block stays out.
    const ended = text.replace('要显示系统引导时 systemd 的默认目标，请执行', '');
    const b = composeExtractiveAnswer(new Question('systemd 用什么取代了运行级别？', { language: zh }), [
      cjkHit('faq', ended, 'zh'),
    ]);
    expect(b.answer).toContain('这一概念在 systemd 中被目标（target）所取代。');
    expect(b.answer).not.toContain('systemctl get-default');
  });
});

describe('Japanese answers', () => {
  it('weighs a long katakana word as one word, not by its many character pairs', () => {
    // "ネットワークインターフェース" is 13 pairs: counted one by one, the sentence naming it won over
    // the one that says which of them the service manages.
    const text =
      'ネットワークインターフェースの名前は、起動のたびに同じ名前が付けられます。\n\n' +
      '名前は udev の規則で決まります。\n\n' +
      'NetworkManager は設定ファイルに書かれていないものだけを管理します。\n\n' +
      '設定ファイルは /etc/network/interfaces です。';
    const a = composeExtractiveAnswer(
      new Question('NetworkManagerはどのネットワークインターフェースを管理しますか？', { language: ja }),
      [cjkHit('nm', text, 'ja')],
    );
    expect(a.kind).toBe('extractive');
    expect(a.answer).toContain('書かれていないものだけを管理します');
  });

  it('keeps a quotation that opens the next sentence with it', () => {
    const text = '"test" を実行可能なファイルの名前に用いてはいけません。"test" はシェルのビルトインです。';
    expect(ja.sentenceSpans(text).map(([s, e]) => text.slice(s, e))).toEqual([
      '"test" を実行可能なファイルの名前に用いてはいけません。',
      '"test" はシェルのビルトインです。',
    ]);
    const closed = 'これは「テスト」です。"引用"。次の文です。';
    expect(ja.sentenceSpans(closed).map(([s, e]) => closed.slice(s, e))).toEqual([
      'これは「テスト」です。',
      '"引用"。',
      '次の文です。',
    ]);
  });
});
