import { describe } from 'vitest';
import { DynamoRunEventStore } from '../../../lib/stores/index.js';
import { runEventStoreContract } from '../../../lib/testing/store-contract.js';
import { dynamoTargets, newTable } from './dynamo.js';

for (const { name, endpoint } of dynamoTargets()) {
  describe(name, () => {
    runEventStoreContract(
      name,
      async (c) => new DynamoRunEventStore({ ...(await newTable(endpoint)), ...c }),
    );
  });
}
