/**
 * A policy's `pattern` parsed as the broker reads it: a PCRE regular expression (Erlang's `re`,
 * rabbit_policy.erl), run on the queue name's bytes without the `unicode` option, so `.` is one byte
 * and a literal `é` two. The constructs that need backtracking to decide (back-references, atomic
 * groups, possessive quantifiers, recursion, conditionals) are refused as `unsupported`: a policy
 * pattern that uses them is reported, never run on a backtracking engine (pattern.ts matches in
 * linear time).
 */

export type PatternNode =
  | { t: 'set'; set: Uint8Array }
  | { t: 'seq'; items: PatternNode[] }
  | { t: 'alt'; alts: PatternNode[] }
  | { t: 'rep'; node: PatternNode; min: number; max: number }
  | { t: 'assert'; kind: AssertKind }
  | { t: 'look'; behind: boolean; neg: boolean; node: PatternNode };

/** ^ $ (and their multiline forms), \A \z \Z, \b \B */
export type AssertKind = 'bol' | 'eol' | 'mbol' | 'meol' | 'start' | 'end' | 'endnl' | 'word' | 'nonword';

/** a pattern the broker refuses (invalid) or one this matcher does not run (unsupported) */
export class PatternError extends Error {
  constructor(
    message: string,
    readonly unsupported = false,
  ) {
    super(message);
  }
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

const setOf = (test: (b: number) => boolean): Uint8Array => {
  const s = new Uint8Array(256);
  for (let b = 0; b < 256; b++) s[b] = test(b) ? 1 : 0;
  return s;
};
const isDigit = (b: number) => b >= 48 && b <= 57;
const isWord = (b: number) => isDigit(b) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95;
/** PCRE's \s: space, \t \n \v \f \r */
const isSpace = (b: number) => b === 32 || (b >= 9 && b <= 13);
export const WORD = setOf(isWord);
const POSIX: Record<string, (b: number) => boolean> = {
  alnum: (b) => isDigit(b) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122),
  alpha: (b) => (b >= 65 && b <= 90) || (b >= 97 && b <= 122),
  ascii: (b) => b < 128,
  blank: (b) => b === 32 || b === 9,
  cntrl: (b) => b < 32 || b === 127,
  digit: isDigit,
  graph: (b) => b > 32 && b < 127,
  lower: (b) => b >= 97 && b <= 122,
  print: (b) => b >= 32 && b < 127,
  punct: (b) => b > 32 && b < 127 && !POSIX.alnum!(b),
  space: isSpace,
  upper: (b) => b >= 65 && b <= 90,
  word: isWord,
  xdigit: (b) => isDigit(b) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102),
};

/** the set of one byte, with its other case under (?i) */
function literal(b: number, f: Flags): Uint8Array {
  const s = new Uint8Array(256);
  s[b] = 1;
  if (f.i && ((b >= 65 && b <= 90) || (b >= 97 && b <= 122))) s[b ^ 32] = 1;
  return s;
}

export function parsePattern(pattern: string): PatternNode {
  return new Parser(Buffer.from(pattern, 'utf8')).parse();
}

class Parser {
  private at = 0;
  constructor(private readonly src: Uint8Array) {}

  parse(): PatternNode {
    const node = this.alternation({ i: false, m: false, s: false, x: false });
    if (this.at < this.src.length) throw new PatternError(`unmatched ')' at offset ${this.at}`);
    return node;
  }

  private peek(k = 0): number {
    return this.src[this.at + k] ?? -1;
  }

  private alternation(flags: Flags): PatternNode {
    const f = { ...flags };
    const alts = [this.sequence(f)];
    while (this.peek() === 124 /* | */) {
      this.at++;
      alts.push(this.sequence(f));
    }
    return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
  }

  /** atoms with their quantifiers, up to | or ) or the end; (?i) inside changes `f` for the rest */
  private sequence(f: Flags): PatternNode {
    const items: PatternNode[] = [];
    for (;;) {
      this.skipExtended(f);
      const c = this.peek();
      if (c === -1 || c === 124 || c === 41 /* ) */) break;
      const atom = this.atom(f);
      if (atom === null) continue;
      items.push(this.quantified(atom, f));
    }
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  }

  private skipExtended(f: Flags): void {
    if (!f.x) return;
    for (;;) {
      const c = this.peek();
      if (isSpace(c)) this.at++;
      else if (c === 35 /* # */) while (this.peek() !== -1 && this.peek() !== 10) this.at++;
      else return;
    }
  }

  private quantified(atom: PatternNode, f: Flags): PatternNode {
    for (;;) {
      this.skipExtended(f);
      const c = this.peek();
      let min: number, max: number;
      if (c === 42 /* * */) [min, max] = [0, Infinity];
      else if (c === 43 /* + */) [min, max] = [1, Infinity];
      else if (c === 63 /* ? */) [min, max] = [0, 1];
      else if (c === 123 /* { */) {
        const braces = this.braces();
        if (!braces) return atom;
        [min, max] = braces;
      } else return atom;
      if (c !== 123) this.at++;
      if (this.peek() === 43) throw new PatternError('a possessive quantifier (*+, ++, ?+)', true);
      if (this.peek() === 63) this.at++; // lazy: the same strings match
      if (min > 65535 || (max !== Infinity && max > 65535)) throw new PatternError('number too big in {} quantifier');
      if (max < min) throw new PatternError('numbers out of order in {} quantifier');
      atom = { t: 'rep', node: atom, min, max };
    }
  }

  /** {n}, {n,}, {n,m} at the cursor (consumed), or null: a literal { */
  private braces(): [number, number] | null {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(Buffer.from(this.src.subarray(this.at, this.at + 24)).toString('latin1'));
    if (!m) return null;
    this.at += m[0].length;
    const min = Number(m[1]);
    return [min, m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3])];
  }

  private atom(f: Flags): PatternNode | null {
    const c = this.src[this.at++]!;
    switch (c) {
      case 40: // (
        return this.group(f);
      case 91: // [
        return { t: 'set', set: this.charClass(f) };
      case 46: // .
        return { t: 'set', set: setOf((b) => f.s || b !== 10) };
      case 94: // ^
        return { t: 'assert', kind: f.m ? 'mbol' : 'bol' };
      case 36: // $
        return { t: 'assert', kind: f.m ? 'meol' : 'eol' };
      case 92: // \
        return this.escape(f);
      case 42:
      case 43:
      case 63:
        throw new PatternError(`quantifier does not follow a repeatable item at offset ${this.at - 1}`);
      default:
        return { t: 'set', set: literal(c, f) };
    }
  }

  private group(f: Flags): PatternNode | null {
    if (this.peek() === 42 /* (* */) throw new PatternError('a backtracking control verb (*...)', true);
    let look: { behind: boolean; neg: boolean } | null = null;
    let inner = f;
    if (this.peek() === 63 /* ? */) {
      this.at++;
      const c = this.peek();
      const two = String.fromCharCode(c, this.peek(1));
      if (c === 58 || c === 124)
        this.at++; // (?: and (?| (branch reset: the same strings)
      else if (c === 61 || c === 33) {
        look = { behind: false, neg: c === 33 };
        this.at++;
      } else if (two === '<=' || two === '<!') {
        look = { behind: true, neg: two === '<!' };
        this.at += 2;
      } else if (c === 60 || c === 39 || (c === 80 && this.peek(1) === 60)) {
        // (?<name> (?'name' (?P<name>: a capturing group
        const close = c === 39 ? 39 : 62;
        while (this.peek() !== close && this.peek() !== -1) this.at++;
        if (this.peek() === -1) throw new PatternError('unterminated group name');
        this.at++;
      } else if (c === 35 /* # */) {
        while (this.peek() !== 41 && this.peek() !== -1) this.at++;
        if (this.peek() === -1) throw new PatternError('missing ) after a comment');
        this.at++;
        return null;
      } else if (c === 62) throw new PatternError('an atomic group (?>...)', true);
      else {
        const flags = this.inlineFlags(f);
        if (this.peek() === 41) {
          // (?i) changes the flags of the rest of the enclosing group
          this.at++;
          Object.assign(f, flags);
          return null;
        }
        if (this.peek() !== 58) throw new PatternError('a recursion, conditional or other (?...) construct', true);
        this.at++;
        inner = flags;
      }
    }
    const node = this.alternation(inner);
    if (this.peek() !== 41) throw new PatternError('missing )');
    this.at++;
    return look ? { t: 'look', ...look, node } : node;
  }

  /** the letters of (?imsx-imsx) / (?imsx-imsx: applied to a copy of `f` */
  private inlineFlags(f: Flags): Flags {
    const out = { ...f };
    let on = true;
    for (;;) {
      const c = this.peek();
      if (c === 45 /* - */) on = false;
      else if (c === 105) out.i = on;
      else if (c === 109) out.m = on;
      else if (c === 115) out.s = on;
      else if (c === 120) out.x = on;
      else if (c === 41 || c === 58) return out;
      else throw new PatternError('a recursion, conditional or other (?...) construct', true);
      this.at++;
    }
  }

  private escape(f: Flags): PatternNode | null {
    const c = this.src[this.at++];
    if (c === undefined) throw new PatternError('\\ at end of pattern');
    const ch = String.fromCharCode(c);
    const assert: Partial<Record<string, AssertKind>> = {
      b: 'word',
      B: 'nonword',
      A: 'start',
      z: 'end',
      Z: 'endnl',
      G: 'start',
    };
    if (assert[ch]) return { t: 'assert', kind: assert[ch] };
    if (ch === 'Q') {
      const items: PatternNode[] = [];
      while (this.at < this.src.length && !(this.peek() === 92 && this.peek(1) === 69)) {
        items.push({ t: 'set', set: literal(this.src[this.at++]!, f) });
      }
      if (this.at < this.src.length) this.at += 2;
      return { t: 'seq', items };
    }
    if (ch === 'E') return null;
    if (ch === 'R') {
      // a newline sequence: \r\n, or one of \n \v \f \r
      const crlf: PatternNode = {
        t: 'seq',
        items: [
          { t: 'set', set: literal(13, f) },
          { t: 'set', set: literal(10, f) },
        ],
      };
      return { t: 'alt', alts: [crlf, { t: 'set', set: setOf((b) => b >= 10 && b <= 13) }] };
    }
    const set = this.escapeSet(c, f, false);
    return { t: 'set', set };
  }

  /** the byte set of an escape (outside or inside a class); throws for what is not a set */
  private escapeSet(c: number, f: Flags, inClass: boolean): Uint8Array {
    const ch = String.fromCharCode(c);
    switch (ch) {
      case 'd':
        return setOf(isDigit);
      case 'D':
        return setOf((b) => !isDigit(b));
      case 'w':
        return setOf(isWord);
      case 'W':
        return setOf((b) => !isWord(b));
      case 's':
        return setOf(isSpace);
      case 'S':
        return setOf((b) => !isSpace(b));
      case 'h':
        return setOf((b) => b === 9 || b === 32 || b === 160);
      case 'H':
        return setOf((b) => !(b === 9 || b === 32 || b === 160));
      case 'v':
        return setOf((b) => (b >= 10 && b <= 13) || b === 133);
      case 'V':
        return setOf((b) => !((b >= 10 && b <= 13) || b === 133));
      case 'N':
        if (inClass) break;
        return setOf((b) => b !== 10);
      case 'C':
        if (inClass) break;
        return setOf(() => true);
      case 't':
        return literal(9, f);
      case 'n':
        return literal(10, f);
      case 'r':
        return literal(13, f);
      case 'f':
        return literal(12, f);
      case 'e':
        return literal(27, f);
      case 'a':
        return literal(7, f);
      case 'b': // inside a class: backspace
        return literal(8, f);
      case 'x':
        return literal(this.hex(), f);
      case 'c': {
        const x = this.src[this.at++];
        if (x === undefined) throw new PatternError('\\c at end of pattern');
        return literal((x >= 97 && x <= 122 ? x - 32 : x) ^ 64, f);
      }
      case '0':
        return literal(this.octal(0), f);
    }
    if (c >= 49 && c <= 57) {
      if (inClass) return literal(this.octal(c - 48), f);
      throw new PatternError('a back-reference (\\1 ... \\9)', true);
    }
    if (ch === 'g' || ch === 'k') throw new PatternError(`a back-reference (\\${ch})`, true);
    if (ch === 'p' || ch === 'P' || ch === 'X' || ch === 'K')
      throw new PatternError(`\\${ch} (Unicode property or match reset)`, true);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122))
      throw new PatternError(`unrecognized character follows \\ (\\${ch})`);
    return literal(c, f);
  }

  private hex(): number {
    if (this.peek() === 123 /* { */) {
      const end = this.src.indexOf(125, this.at);
      const digits = Buffer.from(this.src.subarray(this.at + 1, end)).toString('latin1');
      if (end < 0 || !/^[0-9a-fA-F]+$/.test(digits)) throw new PatternError('malformed \\x{...}');
      this.at = end + 1;
      const v = parseInt(digits, 16);
      if (v > 255) throw new PatternError('character value in \\x{} is too large (the broker runs without unicode)');
      return v;
    }
    let v = 0;
    for (let k = 0; k < 2 && /[0-9a-fA-F]/.test(String.fromCharCode(this.peek())); k++)
      v = v * 16 + parseInt(String.fromCharCode(this.src[this.at++]!), 16);
    return v;
  }

  private octal(first: number): number {
    let v = first;
    for (let k = 0; k < 2 && this.peek() >= 48 && this.peek() <= 55; k++) v = v * 8 + (this.src[this.at++]! - 48);
    return v & 255;
  }

  private charClass(f: Flags): Uint8Array {
    const set = new Uint8Array(256);
    let negate = false;
    if (this.peek() === 94) {
      negate = true;
      this.at++;
    }
    let first = true;
    for (;;) {
      const c = this.src[this.at++];
      if (c === undefined) throw new PatternError('missing terminating ] for character class');
      if (c === 93 && !first) break;
      first = false;
      let lo: number;
      if (c === 91 && this.peek() === 58 /* [: */) {
        const m = /^:(\^?)([a-z]+):\]/.exec(Buffer.from(this.src.subarray(this.at, this.at + 12)).toString('latin1'));
        const test = m && POSIX[m[2]!];
        if (!m || !test) throw new PatternError('unknown POSIX class name');
        this.at += m[0].length;
        for (let b = 0; b < 256; b++) if (test(b) !== (m[1] === '^')) set[b] = 1;
        continue;
      }
      if (c === 92) {
        const e = this.src[this.at++];
        if (e === undefined) throw new PatternError('\\ at end of pattern');
        const s = this.escapeSet(e, f, true);
        const single = s.reduce((n, v) => n + v, 0) === 1 || (f.i && s.reduce((n, v) => n + v, 0) === 2);
        if (!single || !this.rangeFollows()) {
          for (let b = 0; b < 256; b++) if (s[b]) set[b] = 1;
          continue;
        }
        lo = s.indexOf(1);
      } else lo = c;
      if (this.rangeFollows()) {
        this.at++; // -
        let hi = this.src[this.at++]!;
        if (hi === 92) hi = this.escapeSet(this.src[this.at++]!, f, true).indexOf(1);
        if (hi < lo) throw new PatternError('range out of order in character class');
        for (let b = lo; b <= hi; b++) {
          const l = literal(b, f);
          for (let k = 0; k < 256; k++) if (l[k]) set[k] = 1;
        }
      } else {
        const l = literal(lo, f);
        for (let k = 0; k < 256; k++) if (l[k]) set[k] = 1;
      }
    }
    if (negate) for (let b = 0; b < 256; b++) set[b] = set[b] ? 0 : 1;
    return set;
  }

  /** a `-` that makes a range: not the last character of the class */
  private rangeFollows(): boolean {
    return this.peek() === 45 && this.peek(1) !== 93 && this.peek(1) !== -1;
  }
}
