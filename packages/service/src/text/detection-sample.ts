/**
 * The part of a document's text its language is told from. eld reads no more than the first 1,000
 * characters it is given (and of those, the words up to about 350 bytes), so more would only be
 * copied. Markdown code and link targets say nothing about the language and are taken out first,
 * from the first 40,000 characters, so that a document that opens with code is told by its prose.
 * A module of its own: the parser process (adapters/sandbox/child.ts) takes the same sample.
 */
const SAMPLE_CHARS = 1_000;
const CLEANED_CHARS = 40_000;

export function detectionSample(text: string): string {
  return text
    .slice(0, CLEANED_CHARS)
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .slice(0, SAMPLE_CHARS);
}
