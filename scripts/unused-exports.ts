/**
 * `npm run unused-exports` (CI runs it): every top-level export of a source file (src/, labs/,
 * scripts/; tests are not sources) must be imported by some other file, tests included — else it is
 * a file-local value that says it is shared. Read with the TypeScript compiler's parser: named imports
 * and re-exports, `import * as`, `export *` and a dynamic import() (which uses every export of the
 * module it names). Exits 1 listing them, `file: name`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** the files under `dirs` of `root` that end in .ts, relative, forward slashes */
function tsFiles(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = `${rel}/${d.name}`;
      if (d.isDirectory() && d.name !== 'node_modules' && !d.name.startsWith('.')) walk(r);
      else if (d.isFile() && d.name.endsWith('.ts') && !d.name.endsWith('.d.ts')) out.push(r);
    }
  };
  for (const d of dirs) if (fs.existsSync(path.join(root, d))) walk(d);
  return out;
}

const isTest = (f: string) => /\.test\.ts$/.test(f);
const hasExport = (n: ts.Node) =>
  ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** the names a source file exports at its top level (not re-exports, which name another file's) */
function exportsOf(sf: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const st of sf.statements) {
    if (!hasExport(st)) continue;
    if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    if (
      (ts.isFunctionDeclaration(st) ||
        ts.isClassDeclaration(st) ||
        ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isEnumDeclaration(st)) &&
      st.name
    )
      names.push(st.name.text);
  }
  return names;
}

/** what one file takes from others: `file → names` ('*': all of them) */
function importsOf(sf: ts.SourceFile, file: string, resolve: (from: string, spec: string) => string | null) {
  const uses: [string, string][] = [];
  const take = (spec: string, names: string[]) => {
    const target = resolve(file, spec);
    if (target) for (const n of names) uses.push([target, n]);
  };
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      const spec = (n.moduleSpecifier as ts.StringLiteral).text;
      if (ts.isImportDeclaration(n)) {
        const c = n.importClause;
        const nb = c?.namedBindings;
        if (nb && ts.isNamespaceImport(nb)) take(spec, ['*']);
        else if (nb)
          take(
            spec,
            nb.elements.map((e) => (e.propertyName ?? e.name).text),
          );
        if (c?.name) take(spec, ['default']);
      } else {
        const ec = n.exportClause;
        if (!ec) take(spec, ['*']);
        else if (ts.isNamedExports(ec))
          take(
            spec,
            ec.elements.map((e) => (e.propertyName ?? e.name).text),
          );
        else take(spec, ['*']);
      }
    }
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const a = n.arguments[0];
      if (a && ts.isStringLiteralLike(a)) take(a.text, ['*']);
    }
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      take(n.argument.literal.text, ['*']);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return uses;
}

/** `file: name` for each export of a source file that no other file imports */
function unusedExports(root: string, sources: readonly string[], all: readonly string[]): string[] {
  const known = new Set(all);
  const resolve = (from: string, spec: string) => {
    if (!spec.startsWith('.')) return null;
    const r = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '.ts');
    return known.has(r) ? r : null;
  };
  const parse = (f: string) =>
    ts.createSourceFile(f, fs.readFileSync(path.join(root, f), 'utf8'), ts.ScriptTarget.Latest, true);
  const used = new Set<string>();
  for (const f of all) for (const [target, name] of importsOf(parse(f), f, resolve)) used.add(`${target}:${name}`);
  return sources.flatMap((f) =>
    used.has(`${f}:*`) ? [] : exportsOf(parse(f)).flatMap((n) => (used.has(`${f}:${n}`) ? [] : [`${f}: ${n}`])),
  );
}

function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const all = tsFiles(root, ['src', 'labs', 'scripts', 'test', 'examples']);
  // examples/ are programs for users to read and copy: what they export is theirs
  const sources = all.filter((f) => !isTest(f) && !f.startsWith('test/') && !f.startsWith('examples/'));
  const unused = unusedExports(root, sources, all);
  for (const u of unused) process.stdout.write(`unused export: ${u}\n`);
  process.stdout.write(
    unused.length
      ? `${unused.length} export(s) no other file imports: drop the \`export\` (or the code)\n`
      : `every export of ${sources.length} source files is imported elsewhere\n`,
  );
  process.exitCode = unused.length ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
