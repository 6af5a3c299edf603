/** --json documents of `mqlab audit` through docs/audit.schema.json (ajv), as test/report-validate.ts does for the labs' */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { ROOT } from './helpers.js';

const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', 'audit.schema.json'), 'utf8')) as object;
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false });
const validate = ajv.compile(schema);

/** ajv's complaints about an audit document ('' when it matches docs/audit.schema.json) */
export const auditErrors = (doc: unknown) => (validate(doc) ? '' : ajv.errorsText(validate.errors));
