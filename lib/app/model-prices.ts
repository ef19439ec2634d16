import * as z from 'zod';
import { lazySchema } from '../core/lazy-schema.js';
import type { Usage } from '../core/requests.js';

/**
 * The price table behind the run timeline's cost *estimate*: USD per million input and output
 * tokens, by agent name, `default` for every other agent. The kernel does not know which model
 * an agent's framework called (runners report tokens, not prices), so an operator who runs
 * other models sets `MODEL_PRICES` (JSON, same shape); the built-in row is gpt-4.1-mini's list
 * price (the model the offline demo and `npm run new-agent` templates name by default).
 * Cached-input discounts, batch prices and reasoning-token surcharges are not modelled.
 */
export const ModelPriceSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    /** The model the row prices, as shown beside the estimate. */
    model: z.string().min(1).max(100),
    inputPerMillion: z.number().nonnegative().max(10_000),
    outputPerMillion: z.number().nonnegative().max(10_000),
  }),
);
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  default: { model: 'gpt-4.1-mini', inputPerMillion: 0.4, outputPerMillion: 1.6 },
};

/** `MODEL_PRICES`: a JSON object of rows by agent name (or `default`), checked at cold start. */
export const ModelPricesSchema = /* @__PURE__ */ lazySchema(() =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string().min(1).max(256), ModelPriceSchema)),
);

export interface PriceRow extends ModelPrice {
  /** The table's key that matched: the agent's name or `default`. */
  readonly key: string;
  readonly source: 'MODEL_PRICES' | 'built-in';
  readonly currency: 'USD';
}

/** The row for `agent`: configured by name, configured default, then the built-in default. */
export function priceFor(agent: string, configured?: Readonly<Record<string, ModelPrice>>) {
  for (const key of [agent, 'default']) {
    const row = configured?.[key];
    if (row) return { ...row, key, source: 'MODEL_PRICES', currency: 'USD' } satisfies PriceRow;
  }
  const row = BUILT_IN_PRICES.default as ModelPrice;
  return { ...row, key: 'default', source: 'built-in', currency: 'USD' } satisfies PriceRow;
}

/** The estimated cost in USD of `usage` at `price` (unrounded: sums stay exact enough). */
export function costOf(usage: Usage, price: ModelPrice): number {
  return (
    (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1e6
  );
}
