/**
 * Every lab's meta, in the order `mqlab all` runs them (labs/catalogue.ts lists them). Importing
 * this loads all of them; the CLI loads from the catalogue only the labs a command needs.
 */
import type { Registry } from '../src/kit/index.js';
import { catalogue } from './catalogue.js';

export const registry: Registry = await Promise.all(catalogue.map((entry) => entry.load()));
