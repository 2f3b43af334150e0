import type { DetectedLanguage, LanguageDetector } from '../domain/ports.js';
import { detectionSample } from './detection-sample.js';
import { ENGLISH, type Language, languageFor } from './language.js';

/**
 * The language a document is indexed in: the workspace's when it sets one, else the detected one
 * when the detector is sure, else English (a document of tables of numbers or of code has no language
 * to tell; English reading keeps its words whole).
 */
export async function documentLanguage(
  text: string,
  setting: string,
  detector: LanguageDetector | undefined,
  told?: DetectedLanguage | null,
): Promise<Language> {
  if (setting !== 'auto') return languageFor(setting);
  // `told`: what the parser process found on the same sample (ParsedDocument.language), null for nothing.
  const found = told !== undefined ? told : await detector?.detect(detectionSample(text));
  return found?.reliable ? languageFor(found.language) : ENGLISH;
}

/** Scores this close to the best are as good a guess for a short question. */
const CLOSE_SCORE = 0.1;

/**
 * The language a question is read in. A question is short, so a guess the detector is unsure of
 * falls back to the workspace's: the language it sets, else the one language its documents are in.
 */
export async function questionLanguage(
  q: string,
  workspace: { language: string; languages: string[] },
  detector: LanguageDetector | undefined,
): Promise<Language> {
  const written = chineseOrJapanese(q, workspace.languages);
  if (written) return languageFor(written);
  const found = await detector?.detect(q);
  if (found?.reliable) {
    // A few words fit several languages ("paid vacation" scores French 0.81, English 0.74): one the
    // workspace is written in wins when it fits nearly as well.
    const best = found.scores?.[0]?.score ?? 0;
    const near = found.scores?.find(
      (s) => workspace.languages.includes(s.language) && s.score >= best - CLOSE_SCORE,
    );
    return languageFor(
      workspace.languages.includes(found.language) || !near ? found.language : near.language,
    );
  }
  if (workspace.language !== 'auto') return languageFor(workspace.language);
  if (workspace.languages.length === 1) return languageFor(workspace.languages[0]);
  return ENGLISH;
}

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN = /\p{Script=Han}/gu;
/** A word written in letters other than Han characters ("init", "conffile"). */
const OTHER_WORD = /(?:(?!\p{Script=Han})\p{L})+/gu;

/**
 * Japanese or Chinese, told by the script, which the n-gram detector misses in a short question
 * that names something in Latin letters ("w3mという名前の由来は何ですか？" scored English): kana are
 * written only in Japanese; without kana, two Han characters or more for each word in other letters
 * are Chinese (or Japanese, when that is what the workspace is written in and Chinese is not). Words,
 * not letters: a Han character is about a word's worth, and "conffile是什么？" or "System V
 * init一共有几个运行级别？", counted by letters, read as English and lost their Chinese question.
 */
function chineseOrJapanese(text: string, workspaceLanguages: readonly string[]): 'ja' | 'zh' | undefined {
  if (KANA.test(text)) return 'ja';
  const han = text.match(HAN)?.length ?? 0;
  if (han < 2 || han < 2 * (text.match(OTHER_WORD)?.length ?? 0)) return undefined;
  return workspaceLanguages.includes('ja') && !workspaceLanguages.includes('zh') ? 'ja' : 'zh';
}
