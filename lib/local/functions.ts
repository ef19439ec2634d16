/** The Lambda functions of functions/, by file name: what the local stack and invoke load. */
export const FUNCTIONS = [
  'invoke',
  'http',
  'authorizer',
  'ws-connect',
  'ws-disconnect',
  'ws-message',
  'worker',
  'fanout',
  'approvals',
] as const;
export type FunctionName = (typeof FUNCTIONS)[number];
