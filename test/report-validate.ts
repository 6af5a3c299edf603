/**
 * Validators for what CI reads: JUnit XML through a real XML parser (saxes: XML 1.0 well-formedness)
 * and the Jenkins JUnit XSD (xmllint --schema, test/fixtures/junit-10.xsd); --json documents
 * through docs/report.schema.json (ajv).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { SaxesParser } from 'saxes';
import { Ajv } from 'ajv';
import { ROOT } from './helpers.js';

export const JUNIT_XSD = path.join(ROOT, 'test', 'fixtures', 'junit-10.xsd');

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlNode[];
}

/** parse with a strict XML 1.0 parser: throws on anything not well-formed */
export function parseXml(xml: string): XmlNode {
  const parser = new SaxesParser({ xmlns: false });
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  parser.on('error', (e) => {
    throw e;
  });
  parser.on('opentag', (t) => {
    const node: XmlNode = { name: t.name, attrs: t.attributes, text: '', children: [] };
    const parent = stack.at(-1);
    if (parent) parent.children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on('text', (t) => {
    const open = stack.at(-1);
    if (open) open.text += t;
  });
  parser.on('closetag', () => void stack.pop());
  parser.write(xml).close();
  if (!root) throw new Error('no root element');
  return root;
}

export const find = (n: XmlNode, name: string): XmlNode[] => [
  ...(n.name === name ? [n] : []),
  ...n.children.flatMap((c) => find(c, name)),
];

let xmllintReady = false;

/** xmllint from Debian's libxml2-utils: installed here (as root, via apt) when missing */
export function ensureXmllint(): void {
  if (xmllintReady || spawnSync('xmllint', ['--version']).status === 0) {
    xmllintReady = true;
    return;
  }
  if (process.getuid?.() !== 0) throw new Error('xmllint is missing: run `apt-get install libxml2-utils` as root');
  execFileSync('apt-get', ['install', '-y', '-q', '-o', 'DPkg::Lock::Timeout=300', 'libxml2-utils'], {
    stdio: 'ignore',
  });
  xmllintReady = true;
}

/** xmllint --schema junit-10.xsd: '' when valid, else xmllint's complaint */
export function junitXsdErrors(xml: string): string {
  ensureXmllint();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-xsd-')), 'junit.xml');
  fs.writeFileSync(file, xml);
  const r = spawnSync('xmllint', ['--noout', '--schema', JUNIT_XSD, file], { encoding: 'utf8' });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return r.status === 0 ? '' : r.stderr.trim() || `xmllint exited ${r.status}`;
}

const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', 'report.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false });
const validateDoc = ajv.compile(schema);
const validateLab = ajv.compile({ $ref: `${schema.$id}#/definitions/lab` });

/** ajv's complaints about a whole --json document ('' when it matches docs/report.schema.json) */
export const reportErrors = (doc: unknown) => (validateDoc(doc) ? '' : ajv.errorsText(validateDoc.errors));
/** … about one lab of it, on its own */
export const labErrors = (lab: unknown) => (validateLab(lab) ? '' : ajv.errorsText(validateLab.errors));
