import type { TestProject } from 'vitest/node';
import { startDynalite } from '../lib/local/dynalite.js';
import { startDynamoDbLocal } from '../lib/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynaliteEndpoint: string;
    dynamoLocalEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [dynalite, local] = await Promise.all([startDynalite(), startDynamoDbLocal()]);
  project.provide('dynaliteEndpoint', dynalite.url);
  project.provide('dynamoLocalEndpoint', local.url);
  return async () => {
    await Promise.all([dynalite.stop(), local.stop()]);
  };
}
