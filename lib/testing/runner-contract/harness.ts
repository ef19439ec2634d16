import type { Agent } from '../../core/agent.js';
import type { Reply } from '../../core/requests.js';
import type { RunOptions } from '../../core/run-options.js';
import type { ToolRunner } from '../../tools/executor.js';
import type { ToolSpec } from '../../tools/spec.js';
import type { RecordedRequest, ScriptEntry } from '../scripted-model-server.js';

/** What the suite hands a harness to build its agent with. */
export interface RunnerContractEnv {
  /** The scripted model server's base URL (with `/v1`), for the framework's OpenAI client. */
  readonly modelUrl: string;
  /** `get_weather` and `send_payment` (confirm): export them through the framework's integration. */
  readonly tools: readonly ToolSpec<any, any>[];
  /** The real Executor every exported tool must run through. */
  readonly executor: ToolRunner;
}

/** How a run option shows that it reached the framework's native call. */
export interface RunOptionProbe {
  readonly options: RunOptions;
  /** What the model answers while the option is in force. */
  readonly script: ScriptEntry[];
  /** Throws (vitest `expect`) unless the option took effect. */
  assess(outcome: { reply?: Reply; error?: unknown; requests: readonly RecordedRequest[] }): void;
}

/** What a framework's author writes so the suite can drive its runner. */
export interface RunnerContractHarness {
  /** Names the tests: `<name> runner contract`. */
  readonly name: string;
  /** Must equal the runner's own `supportsPause`: the pause checks run only when true. */
  readonly supportsPause: boolean;
  /** The agent under test, named `agent`, using `env.modelUrl` and the tools of `env`. */
  agent(env: RunnerContractEnv): Agent<any> | Promise<Agent<any>>;
  readonly runOption: RunOptionProbe;
  /** One of the runner's reserved run options. */
  readonly reservedOption: string;
}
