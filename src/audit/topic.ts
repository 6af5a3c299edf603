/**
 * Topic routing as RabbitMQ does it (rabbit_db_topic_exchange.erl): a key splits on "." into words
 * ("" has none), a binding pattern's `*` takes one word and `#` zero or more. Bindings sit in a trie,
 * built once per exchange, so a key is routed in about as many steps as it has words, and a carried
 * topic *pattern* (the set of keys that bound a queue) is checked against every binding in one walk:
 * which bindings some of its keys reach, and a key of it that none reaches (a witness of a loss).
 */

export const words = (s: string): string[] => (s === '' ? [] : s.split('.'));
/** has the key a word * or # (without splitting it) */
export const isPattern = (s: string) => /(^|\.)[*#](\.|$)/.test(s);

/** does key (words) match pattern (words) */
export function topicMatch(pattern: readonly string[], key: readonly string[]): boolean {
  // the pattern positions reachable after each key word (a # may take none, so close over them)
  let at = close(pattern, new Set([0]));
  for (const w of key) {
    const next = new Set<number>();
    for (const i of at) {
      const p = pattern[i];
      if (p === '#') next.add(i);
      else if (p === '*' || p === w) next.add(i + 1);
    }
    at = close(pattern, next);
    if (!at.size) return false;
  }
  return at.has(pattern.length);
}

function close(pattern: readonly string[], at: Set<number>): Set<number> {
  for (const i of at) if (pattern[i] === '#') at.add(i + 1);
  return at;
}

interface TrieNode<T> {
  id: number;
  words: Map<string, TrieNode<T>>;
  star: TrieNode<T> | null;
  hash: TrieNode<T> | null;
  /** reached through a # edge: it takes any number of words */
  isHash: boolean;
  values: T[];
}

export class TopicTrie<T> {
  private nodes = 0;
  private readonly root: TrieNode<T> = this.node(false);
  /** every literal word of every pattern: a word outside it stands for "any other word" */
  readonly vocabulary = new Set<string>();

  private node(isHash: boolean): TrieNode<T> {
    return { id: this.nodes++, words: new Map(), star: null, hash: null, isHash, values: [] };
  }

  add(pattern: string, value: T): void {
    let at = this.root;
    for (const w of words(pattern)) {
      if (w === '*') at = at.star ??= this.node(false);
      else if (w === '#') at = at.hash ??= this.node(true);
      else {
        this.vocabulary.add(w);
        if (!at.words.has(w)) at.words.set(w, this.node(false));
        at = at.words.get(w)!;
      }
    }
    at.values.push(value);
  }

  /**
   * The values of the bindings that some key of `carried` reaches: `carried` is a topic pattern, or
   * with `asKey` one routing key (its words taken literally, as the broker takes a published key).
   */
  reach(carried: string, asKey = false): Set<T> {
    const p = words(carried);
    const m = p.length;
    const out = new Set<T>();
    const seen = new Set<number>();
    const stack: [number, TrieNode<T>][] = [[0, this.root]];
    const push = (i: number, n: TrieNode<T>) => {
      const key = i * this.nodes + n.id;
      if (!seen.has(key)) {
        seen.add(key);
        stack.push([i, n]);
      }
    };
    while (stack.length) {
      const [i, n] = stack.pop()!;
      if (n.hash) push(i, n.hash); // # takes no word
      const pw = i < m ? p[i]! : null;
      const wild = !asKey && (pw === '*' || pw === '#');
      if (!asKey && pw === '#') push(i + 1, n);
      if (i === m) {
        for (const v of n.values) out.add(v);
        continue;
      }
      const next = !asKey && pw === '#' ? i : i + 1;
      // a word the carried side may take, and where the trie goes with it
      if (n.isHash) push(next, n);
      if (n.star) push(next, n.star);
      if (wild) for (const child of n.words.values()) push(next, child);
      else {
        const child = n.words.get(pw!);
        if (child) push(next, child);
      }
    }
    return out;
  }

  /**
   * A key of `carried` (a pattern) that no binding reaches, or null: its wildcards filled with a word
   * no binding names (and each # with none, one or two of them). Found only where one exists; a
   * pattern all of whose keys are covered by several bindings together gives null too.
   */
  unreached(carried: string): string | null {
    const other = freshWord(this.vocabulary);
    for (const key of fillings(carried, other)) if (this.reach(key, true).size === 0) return key;
    return null;
  }
}

/** "other", or "other2" … : a word no binding names */
export function freshWord(vocabulary: ReadonlySet<string>): string {
  let w = 'other';
  for (let k = 2; vocabulary.has(w); k++) w = `other${k}`;
  return w;
}

/** keys of a topic pattern: * as `other`; each # as none, one or two words (at most 4 #s vary) */
function fillings(pattern: string, other: string): string[] {
  const p = words(pattern);
  const hashes = p.filter((w) => w === '#').length;
  const choices = hashes > 4 ? [[0], [1]] : [[0], [1], [2]];
  let keys: string[][] = [[]];
  let h = 0;
  for (const w of p) {
    if (w === '*') keys = keys.map((k) => [...k, other]);
    else if (w === '#') {
      const varies = h++ < 4;
      keys = keys.flatMap((k) => (varies ? choices : [[0]]).map(([n]) => [...k, ...Array<string>(n!).fill(other)]));
    } else keys = keys.map((k) => [...k, w]);
  }
  return keys.map((k) => k.join('.'));
}
