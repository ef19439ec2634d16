import type { Runtime } from '../../lib/core/index.js';

/**
 * The payments examples' walk-through, whatever the framework: ask `payments` to pay Bob, print
 * the pause, approve every call the model made (by the ids it chose, never the script's), resume
 * and print the tool's result and the reply.
 */
export async function payBobAndApprove(
  runtime: Runtime,
  log: (line: string) => void,
): Promise<void> {
  let runId = '';
  const approvals: string[] = [];
  for await (const event of runtime.stream('payments', 'demo-session', 'Please pay Bob 10.')) {
    runId = event.runId;
    if (event.type === 'run-error') log(`error: ${event.message}`);
    if (event.type !== 'run-paused') continue;
    log(`paused: ${JSON.stringify(event.interruptions)}`);
    approvals.push(...event.interruptions.map((i) => i.id));
  }
  if (approvals.length === 0) {
    log('The model made no payment call: nothing to approve.');
    return;
  }
  log(`approving: ${approvals.join(', ')}`);
  const decisions = approvals.map((id) => ({ id, status: 'approved' as const }));
  for await (const event of runtime.resumeStream('demo-session', runId, decisions)) {
    if (event.type === 'tool-call-result') {
      log(`tool ${event.toolName} → ${JSON.stringify(event.result)}`);
    }
    if (event.type === 'run-finished') log(`reply: ${event.reply.text}`);
    if (event.type === 'run-error') log(`error: ${event.message}`);
  }
}
