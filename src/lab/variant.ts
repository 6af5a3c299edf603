/**
 * The seam where a lab's broken variants (TEST ONLY, MQLAB_FAULT, src/lab/fault.ts) are applied, so that
 * lab.ts reads as the correct experiment. A lab writes the steps a variant may replace as one object
 * of correct steps (its policy: a settle, a route, a topology, a wrapped handler); its variants.ts
 * says, per variant declared in meta.ts, which steps that variant replaces. `withVariants` returns
 * the policy with the asked-for variants' replacements (in the order variants.ts lists them), or the
 * policy itself when none is asked for.
 */

/** what withVariants asks: the lab context or a child runtime (both answer fault(name)) */
export interface AsksFaults<F extends string> {
  fault(name: F): boolean;
}

/**
 * per broken variant, the steps of policy P it replaces (variants.ts): the replacements, or a function
 * of the policy as applied so far (so two variants can change two fields of one step)
 */
export type Variants<P, F extends string> = { readonly [name in F]?: Partial<P> | ((applied: P) => Partial<P>) };

export function withVariants<P extends object, F extends string>(
  asked: AsksFaults<F>,
  policy: P,
  variants: Variants<P, F>,
): P {
  let applied = policy;
  for (const name of Object.keys(variants) as F[]) {
    const variant = variants[name];
    if (variant && asked.fault(name))
      applied = { ...applied, ...(typeof variant === 'function' ? variant(applied) : variant) };
  }
  return applied;
}

/** a handler unchanged: the correct default of a `wrap…` step a variant may replace */
export const unchanged = <H>(handler: H): H => handler;
