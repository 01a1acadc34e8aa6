/** phrases: the most common phrases of a text column (phrases.mdx). */
import type { AggregationFunction } from "./contract";
import { namedAfterFirstArg, positiveInt } from "./shared";

/** Phrases are runs of 2 to 4 words (phrases.mdx: "common phrases or word sequences"). */
const PHRASE_WORDS_MIN = 2;
const PHRASE_WORDS_MAX = 4;
/**
 * Distinct phrases one group tracks. Past it, only the most frequent half is kept (ties by text, so the choice does
 * not depend on arrival order within a batch): a sort every PHRASES_TRACKED_MAX / 2 new phrases, O(log n) a phrase
 * amortised, where dropping only the once-seen ones could leave the map full and rescan it on every row.
 */
const PHRASES_TRACKED_MAX = 100_000;
/** Words that do not start or end a phrase: "the error" is the phrase "error"'s context, not a phrase. */
const PHRASE_EDGE_WORDS = new Set(
  "a an and are as at be but by for from has have i in is it of on or so that the this to was were will with you your".split(
    " ",
  ),
);

/** The distinct 2-to-4-word phrases of one text: lower-cased words, never across punctuation. */
function phrasesOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const segment of text.toLowerCase().split(/[^\p{L}\p{N}'\s-]+|\s-\s/u)) {
    const words = segment.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
    for (let i = 0; i < words.length; i++) {
      if (PHRASE_EDGE_WORDS.has(words[i])) continue;
      for (let n = PHRASE_WORDS_MIN; n <= PHRASE_WORDS_MAX && i + n <= words.length; n++) {
        if (!PHRASE_EDGE_WORDS.has(words[i + n - 1])) found.add(words.slice(i, i + n).join(" "));
      }
    }
  }
  return found;
}

/**
 * phrases(text, max_phrases) (phrases.mdx): the most common phrases of a text column as `{phrase, count}`, most
 * common first, at most max_phrases. The reference does not document how the service finds phrases; the
 * emulator's rule: a phrase is a run of 2 to 4 words within a stretch of text without punctuation, neither first
 * nor last word a common English function word; its count is the number of rows it appears in; a phrase needs
 * at least 2 rows, and a phrase inside a longer one with the same count is left out for the longer one. Ties go to
 * the longer phrase, then alphabetical order.
 */
export function definePhrases(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const max = positiveInt(constants[1], fn, "max_phrases");
      const counts = new Map<string, number>();
      return {
        add([v]) {
          if (typeof v !== "string" || v === "") return;
          for (const phrase of phrasesOf(v)) counts.set(phrase, (counts.get(phrase) ?? 0) + 1);
          if (counts.size > PHRASES_TRACKED_MAX) {
            const ranked = [...counts].sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0));
            for (const [phrase] of ranked.slice(PHRASES_TRACKED_MAX / 2)) counts.delete(phrase);
          }
        },
        result() {
          const common = [...counts].filter(([, count]) => count >= 2);
          const kept = new Map(common);
          for (const [phrase, count] of common) {
            const words = phrase.split(" ");
            // Every shorter phrase inside this one with the same count is this one's part.
            for (let n = PHRASE_WORDS_MIN; n < words.length; n++) {
              for (let i = 0; i + n <= words.length; i++) {
                const part = words.slice(i, i + n).join(" ");
                if (kept.get(part) === count) kept.delete(part);
              }
            }
          }
          const ranked = [...kept].sort(
            ([a, ca], [b, cb]) =>
              cb - ca || b.split(" ").length - a.split(" ").length || (a < b ? -1 : a > b ? 1 : 0),
          );
          return [ranked.slice(0, max).map(([phrase, count]) => ({ phrase, count }))];
        },
      };
    },
  };
}
