/**
 * Policy patterns matched in linear time. The broker runs `re:run(Name, Pattern)` (PCRE, bytes, a
 * search anywhere in the name); a backtracking engine takes exponential time on patterns such as
 * `^(a+)+$` (one queue name: 91 s in V8, security review D8). Here the parsed pattern
 * (pattern-parse.ts) becomes a Thompson NFA whose states are explored once per position: at most
 * states × (length + 1) steps per name, whatever the pattern. Lookarounds are evaluated once per
 * position they are asked at.
 */
import { parsePattern, PatternError, WORD, type AssertKind, type PatternNode } from './pattern-parse.js';

const CHAR = 0;
const SPLIT = 1;
const ASSERT = 2;
const LOOK = 3;
const MATCH = 4;

/** more states than this (a {1000} on a large group) is refused rather than built */
const MAX_STATES = 20_000;

const ASSERTS: AssertKind[] = ['bol', 'eol', 'mbol', 'meol', 'start', 'end', 'endnl', 'word', 'nonword'];

interface Look {
  start: number;
  behind: boolean;
  neg: boolean;
}

export interface CompiledPattern {
  /** does the pattern match somewhere in `name` (as `re:run(Name, Pattern)` finds) */
  test(name: string): boolean;
}

type PatternResult =
  | { ok: true; pattern: CompiledPattern }
  /** `unsupported`: valid PCRE this matcher does not run (back-references, atomic groups …) */
  | { ok: false; unsupported: boolean; reason: string };

export function compilePattern(pattern: string): PatternResult {
  try {
    return { ok: true, pattern: new Program(parsePattern(pattern)) };
  } catch (err) {
    if (err instanceof PatternError) return { ok: false, unsupported: err.unsupported, reason: err.message };
    throw err;
  }
}

class Program implements CompiledPattern {
  private op: number[] = [];
  private a: number[] = [];
  private b: number[] = [];
  private sets: Uint8Array[] = [];
  private looks: Look[] = [];
  private readonly start: number;
  /** every branch starts with ^ or \A: a match can only start at position 0 */
  private readonly anchored: boolean;

  constructor(root: PatternNode) {
    const end = this.add(MATCH, 0, 0);
    this.start = this.compile(root, end);
    this.anchored = startsAnchored(root);
  }

  private add(op: number, a: number, b: number): number {
    if (this.op.length >= MAX_STATES) throw new PatternError(`more than ${MAX_STATES} states`, true);
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.op.length - 1;
  }

  /** the states of `n`, followed by `next`: returns its first state */
  private compile(n: PatternNode, next: number): number {
    switch (n.t) {
      case 'set':
        this.sets.push(n.set);
        return this.add(CHAR, this.sets.length - 1, next);
      case 'seq': {
        let at = next;
        for (let k = n.items.length - 1; k >= 0; k--) at = this.compile(n.items[k]!, at);
        return at;
      }
      case 'alt': {
        let at = this.compile(n.alts[n.alts.length - 1]!, next);
        for (let k = n.alts.length - 2; k >= 0; k--) at = this.add(SPLIT, this.compile(n.alts[k]!, next), at);
        return at;
      }
      case 'rep': {
        let at = next;
        if (n.max === Infinity) {
          // loop: SPLIT(body → loop, next)
          const loop = this.add(SPLIT, 0, next);
          this.a[loop] = this.compile(n.node, loop);
          at = loop;
        } else for (let k = n.min; k < n.max; k++) at = this.add(SPLIT, this.compile(n.node, at), next);
        for (let k = 0; k < n.min; k++) at = this.compile(n.node, at);
        return at;
      }
      case 'assert':
        return this.add(ASSERT, ASSERTS.indexOf(n.kind), next);
      case 'look': {
        const end = this.add(MATCH, 0, 0);
        this.looks.push({ start: this.compile(n.node, end), behind: n.behind, neg: n.neg });
        return this.add(LOOK, this.looks.length - 1, next);
      }
    }
  }

  /** explored (state, position) pairs of the current run: stamped, so no buffer is cleared between names */
  private stamps = new Uint32Array(1024);
  private generation = 0;

  test(name: string): boolean {
    const s = Buffer.from(name, 'utf8');
    const size = this.op.length * (s.length + 1);
    if (this.stamps.length < size) this.stamps = new Uint32Array(Math.max(size, this.stamps.length * 2));
    if (++this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
    const run = new Run(this, s, { stamps: this.stamps, generation: this.generation });
    const starts = this.anchored ? 1 : s.length + 1;
    for (let p = 0; p < starts; p++) if (run.reaches(this.start, p, -1)) return true;
    return false;
  }

  /** used by Run */
  get program() {
    return { op: this.op, a: this.a, b: this.b, sets: this.sets, looks: this.looks };
  }
}

/** `^` or \A first on every branch: only position 0 can start a match */
function startsAnchored(n: PatternNode): boolean {
  if (n.t === 'assert') return n.kind === 'bol' || n.kind === 'start';
  if (n.t === 'seq') return n.items.length > 0 && startsAnchored(n.items[0]!);
  if (n.t === 'alt') return n.alts.every(startsAnchored);
  return false;
}

/** the (state, position) pairs a search has explored: `stamps[key] === generation` */
interface Seen {
  stamps: Uint32Array;
  generation: number;
}

/** one name against one program: the (state, position) pairs already explored, kept across start positions */
class Run {
  private readonly lookMemo = new Map<number, boolean>();
  private readonly n: number;
  constructor(
    private readonly p: Program,
    private readonly s: Buffer,
    private readonly seen: Seen,
  ) {
    this.n = s.length;
  }

  /**
   * is a MATCH state reachable from (state, pos); with `endAt` ≥ 0 only a MATCH at that position
   * counts (a lookbehind). A pair explored before (from another start) is not explored again: the
   * answer from it cannot differ, the states after a pair do not depend on how it was reached.
   */
  reaches(state: number, pos: number, endAt: number, seen = this.seen): boolean {
    const { op, a, b, sets, looks } = this.p.program;
    const { stamps, generation } = seen;
    const width = this.n + 1;
    const stack: number[] = [state, pos];
    while (stack.length) {
      const at = stack.pop()!;
      const st = stack.pop()!;
      const key = st * width + at;
      if (stamps[key] === generation) continue;
      stamps[key] = generation;
      switch (op[st]) {
        case MATCH:
          if (endAt < 0 || at === endAt) return true;
          break;
        case CHAR:
          if (at < this.n && sets[a[st]!]![this.s[at]!]) stack.push(b[st]!, at + 1);
          break;
        case SPLIT:
          stack.push(b[st]!, at, a[st]!, at);
          break;
        case ASSERT:
          if (this.holds(ASSERTS[a[st]!]!, at)) stack.push(b[st]!, at);
          break;
        case LOOK:
          if (this.look(a[st]!, looks[a[st]!]!, at)) stack.push(b[st]!, at);
          break;
      }
    }
    return false;
  }

  private look(id: number, l: Look, pos: number): boolean {
    const key = id * (this.n + 1) + pos;
    let found = this.lookMemo.get(key);
    if (found === undefined) {
      // a search of its own: what its states reach depends on where it must end
      const seen = { stamps: new Uint32Array(this.p.program.op.length * (this.n + 1)), generation: 1 };
      if (!l.behind) found = this.reaches(l.start, pos, -1, seen);
      else {
        found = false;
        for (let from = pos; from >= 0 && !found; from--) found = this.reaches(l.start, from, pos, seen);
      }
      this.lookMemo.set(key, found);
    }
    return found !== l.neg;
  }

  private holds(kind: AssertKind, at: number): boolean {
    const s = this.s;
    const n = this.n;
    switch (kind) {
      case 'bol':
      case 'start':
        return at === 0;
      case 'mbol':
        return at === 0 || s[at - 1] === 10;
      case 'end':
        return at === n;
      case 'eol':
      case 'endnl':
        return at === n || (at === n - 1 && s[at] === 10);
      case 'meol':
        return at === n || s[at] === 10;
      case 'word':
      case 'nonword': {
        const before = at > 0 && WORD[s[at - 1]!] === 1;
        const after = at < n && WORD[s[at]!] === 1;
        return (before !== after) === (kind === 'word');
      }
    }
  }
}
