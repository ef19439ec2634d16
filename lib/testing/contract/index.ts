export { type ContractOptions, contractTests } from './checks.js';
export type {
  ApprovalMode,
  ContractHarness,
  RunnerFactory,
  RunnerFactoryOptions,
} from './harness.js';
export { executorRunnerFactory, fakeRunnerFactory } from './runners.js';
