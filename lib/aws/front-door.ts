import type { SQSClient } from '@aws-sdk/client-sqs';
import { FrontDoor } from '../app/front-door.js';
import type { AgentCatalog, JobQueue } from '../app/ports.js';
import { runJobFifoKeys } from '../transport/fifo.js';
import type { Config } from './config.js';
import type { MessageDeployment } from './connections.js';
import { queueUrl, sendJson } from './queues.js';
import type { Deployment } from './runtime.js';

const built = new WeakMap<object, FrontDoor>();

/**
 * The front door of a function with a Runtime (http, invoke, approvals): turns run here, jobs go
 * to the run queue. Built once per deployment; the SQS client is asked for on first send only.
 */
export function frontDoorOf(
  deployed: Deployment,
  sqs?: () => SQSClient,
  redact?: (text: string) => string,
): FrontDoor {
  return once(deployed, () => {
    const { runtime } = deployed;
    const agents: AgentCatalog = {
      has: (name) => runtime.agents.some((agent) => agent.name === name),
      cards: () => runtime.agents.map((agent) => agent.card()),
    };
    return new FrontDoor({
      sessions: runtime.sessions,
      pausedRuns: { get: (s, r) => runtime.pausedRuns?.get(s, r) ?? Promise.resolve(undefined) },
      runs: deployed.runs,
      idempotency: deployed.idempotency,
      connections: deployed.connections,
      agents,
      turns: runtime,
      ...(redact ? { redact } : {}),
      ...common(deployed.config, sqs),
    });
  });
}

/** ws-message's front door: no Runtime; the agent names come from AGENT_NAMES. */
export function messageFrontDoorOf(deployed: MessageDeployment, sqs: () => SQSClient): FrontDoor {
  return once(deployed, () => {
    const names = deployed.agentNames;
    return new FrontDoor({
      sessions: deployed.sessions,
      pausedRuns: deployed.pausedRuns,
      runs: deployed.runs,
      idempotency: deployed.idempotency,
      connections: deployed.connections,
      agents: { has: (name) => names?.has(name), cards: () => [...(names ?? [])] },
      ...common(deployed.config, sqs),
    });
  });
}

function common(config: Config, sqs: (() => SQSClient) | undefined) {
  return {
    ...(sqs && config.RUN_QUEUE_URL ? { queue: jobQueue(config, sqs) } : {}),
    ...(config.APPROVER_PRINCIPALS ? { approvers: config.APPROVER_PRINCIPALS } : {}),
  };
}

/** The FIFO run queue: group = session, dedup id = digest of (principal, session, requestId). */
function jobQueue(config: Config, sqs: () => SQSClient): JobQueue {
  const url = queueUrl(config, 'RUN_QUEUE_URL');
  return { send: (job) => sendJson(sqs(), url, job, runJobFifoKeys(job)) };
}

function once(key: object, build: () => FrontDoor): FrontDoor {
  let door = built.get(key);
  if (!door) {
    door = build();
    built.set(key, door);
  }
  return door;
}
