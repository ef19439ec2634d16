import * as z from 'zod';

/** How a subscriber gets a session's events: the native `events` messages or AG-UI events. */
export const SubscriptionFormatSchema = z.enum(['native', 'ag-ui']);
export type SubscriptionFormat = z.infer<typeof SubscriptionFormatSchema>;
