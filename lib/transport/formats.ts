import * as z from 'zod/mini';
import { lazySchema } from '../core/lazy-schema.js';

/** How a subscriber gets a session's events: the native `events` messages or AG-UI events. */
export const SubscriptionFormatSchema = /* @__PURE__ */ lazySchema(() =>
  z.enum(['native', 'ag-ui']),
);
export type SubscriptionFormat = z.infer<typeof SubscriptionFormatSchema>;
