/**
 * Where a text stops being JSON: the offset of the first character a JSON parser cannot take, or the
 * text's length when it ends too soon. Used only after JSON.parse failed, to say "line L, column C"
 * without quoting the text (V8 names a position for some errors and quotes the text for others).
 */
function jsonErrorOffset(text: string): number {
  let at = 0;
  const ws = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  /** thrown with the offset where the text stops being JSON */
  class Stop extends Error {
    constructor(readonly at: number) {
      super('not JSON');
    }
  }
  const fail = (): never => {
    throw new Stop(at);
  };
  const lit = (word: string) => {
    for (const ch of word) {
      if (text[at] !== ch) fail();
      at++;
    }
  };
  const str = () => {
    at++; // "
    while (at < text.length) {
      const c = text[at]!;
      if (c === '"') return void at++;
      if (c < ' ') fail();
      if (c === '\\') {
        at++;
        const e = text[at];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail();
          at += 4;
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) fail();
      }
      at++;
    }
    fail();
  };
  const num = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!m) fail();
    at += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[at];
    if (c === '{') {
      at++;
      ws();
      if (text[at] === '}') return void at++;
      for (;;) {
        ws();
        if (text[at] !== '"') fail();
        str();
        ws();
        if (text[at] !== ':') fail();
        at++;
        value();
        ws();
        if (text[at] === '}') return void at++;
        if (text[at] !== ',') fail();
        at++;
      }
    }
    if (c === '[') {
      at++;
      ws();
      if (text[at] === ']') return void at++;
      for (;;) {
        value();
        ws();
        if (text[at] === ']') return void at++;
        if (text[at] !== ',') fail();
        at++;
      }
    }
    if (c === '"') return str();
    if (c === 't') return lit('true');
    if (c === 'f') return lit('false');
    if (c === 'n') return lit('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return num();
    fail();
  };
  try {
    value();
    ws();
    if (at < text.length) fail();
  } catch (stop) {
    if (stop instanceof Stop) return Math.min(stop.at, text.length);
    throw stop;
  }
  return text.length;
}

/** "line L, column C", or "it ends too soon" */
export function jsonErrorPlace(text: string): string {
  let at: number;
  try {
    at = jsonErrorOffset(text);
  } catch {
    return 'nested too deeply to say where'; // the scanner's own stack
  }
  if (at >= text.trimEnd().length) return 'it ends too soon';
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return `line ${line}, column ${at - before.lastIndexOf('\n')}`;
}
