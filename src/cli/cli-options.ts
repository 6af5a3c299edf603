/**
 * Option specs on a commander command: the flag with its help (and default, as written), the old
 * flag names as hidden aliases; and back from commander's values to the raw strings by option key,
 * which `parseOptions` turns into the typed options.
 */
import { Option, type Command } from 'commander';
import { flagName, type AnyOptions, type OptionSpecs } from '../core/options.js';
import { text } from '../core/text.js';

/** commander's key for a flag: '--max-delay <duration>' → 'maxDelay' */
const attribute = (flag: string) => new Option(flag).attributeName();

export function addSpecOptions(cmd: Command, specs: OptionSpecs<AnyOptions>): void {
  for (const spec of Object.values(specs)) {
    const help = spec.default === undefined ? spec.description : `${spec.description} (default: ${spec.default})`;
    const o = new Option(spec.flag, help);
    if (spec.required) o.makeOptionMandatory();
    cmd.addOption(o);
    for (const alias of spec.aliases ?? [])
      cmd.addOption(new Option(`${alias} <value>`, `old name of ${flagName(spec.flag)}`).hideHelp());
  }
}

/** the raw strings given on the command line (the new flag name wins over an alias), by option key */
export function givenOptions<O>(
  specs: OptionSpecs<O>,
  values: Record<string, unknown>,
): Partial<Record<keyof O, string>> {
  const given: Partial<Record<keyof O, string>> = {};
  for (const key of Object.keys(specs) as (keyof O)[]) {
    const spec = specs[key];
    const raw = [spec.flag, ...(spec.aliases ?? [])].map((f) => values[attribute(f)]).find((v) => v !== undefined);
    if (raw !== undefined) given[key] = text(raw);
  }
  return given;
}
