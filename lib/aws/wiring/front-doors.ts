import type { SQSClient } from '@aws-sdk/client-sqs';
import { FrontDoor } from '../../app/front-door.js';
import type { AgentCatalog, JobQueue } from '../../app/ports.js';
import { runJobFifoKeys } from '../../transport/fifo.js';
import { queueUrl, sendJson } from '../adapters/sqs-queues.js';
import type { Config } from './config.js';
import type { Deployment } from './deployment.js';
import type { MessageDeployment } from './light-deployments.js';

/**
 * The front door of a function with a Runtime (http, invoke, approvals): turns run here, jobs go
 * to the run queue. The SQS client is asked for on first send only.
 */
export function frontDoorOf(
  deployed: Deployment,
  sqs?: () => SQSClient,
  redact?: (text: string) => string,
): FrontDoor {
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
    sessionIndex: deployed.sessionIndex,
    idKey: () => deployed.idKey.key(),
    connections: deployed.connections,
    agents,
    turns: runtime,
    ...(deployed.fairUse ? { fairUse: deployed.fairUse } : {}),
    ...(redact ? { redact } : {}),
    ...common(deployed.config, sqs),
  });
}

/** ws-message's front door: no Runtime; the agent names come from AGENT_NAMES. */
export function messageFrontDoorOf(
  deployed: MessageDeployment,
  sqs: () => SQSClient,
  redact?: (text: string) => string,
): FrontDoor {
  const names = deployed.agentNames;
  return new FrontDoor({
    sessions: deployed.sessions,
    pausedRuns: deployed.pausedRuns,
    runs: deployed.runs,
    idempotency: deployed.idempotency,
    sessionIndex: deployed.sessionIndex,
    idKey: () => deployed.idKey.key(),
    connections: deployed.connections,
    agents: { has: (name) => names?.has(name), cards: () => [...(names ?? [])] },
    ...(deployed.fairUse ? { fairUse: deployed.fairUse } : {}),
    ...(redact ? { redact } : {}),
    ...common(deployed.config, sqs),
  });
}

/**
 * One front door per handler and deployment (a handler's deployment is built once; a failed
 * build is retried as a new object): `build` runs only when the deployment changes.
 */
export function frontDoorCache<D extends object>(build: (deployed: D) => FrontDoor) {
  const doors = new WeakMap<D, FrontDoor>();
  return (deployed: D): FrontDoor => {
    let door = doors.get(deployed);
    if (!door) {
      door = build(deployed);
      doors.set(deployed, door);
    }
    return door;
  };
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
