import type { Agent } from '../../core/agent.js';
import type { ToolEffects } from '../../core/journal.js';
import type { Reply } from '../../core/requests.js';
import type { RunOptions } from '../../core/run-options.js';
import type { ToolRunner } from '../../tools/executor.js';
import type { AnyToolSpec } from '../../tools/spec.js';
import type { RecordedRequest, ScriptEntry } from '../scripted-model-server.js';

/** What the suite hands a harness to build its agent with. */
export interface RunnerContractEnv {
  /** The scripted model server's base URL (with `/v1`), for the framework's OpenAI client. */
  readonly modelUrl: string;
  /** `get_weather` and `send_payment` (confirm): export them through the framework's integration. */
  readonly tools: readonly AnyToolSpec[];
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

/**
 * A tool the durability checks need as the framework's *native* tool (OpenAI `tool()`, AI SDK
 * `tool()`, a LangChain tool): the runner, not the executor, must guard it.
 */
export interface ContractNativeTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (an object with `to` and `amount`). */
  readonly parameters: Record<string, unknown>;
  /** Ask a person first, with the framework's own gate (a LangGraph tool `interrupt()`s with an `ApprovalInterrupt`). */
  readonly needsApproval: boolean;
  /** Declare them with the framework folder's `withToolEffects`. */
  readonly effects?: ToolEffects;
  /** The tool's body; its result (a string) is what the model reads. */
  execute(args: { to: string; amount: number }): Promise<string>;
}

export interface NativeToolsEnv {
  readonly modelUrl: string;
  readonly tools: readonly ContractNativeTool[];
}

/** What a framework's author writes so the suite can drive its runner. */
export interface RunnerContractHarness {
  /** Names the tests: `<name> runner contract`. */
  readonly name: string;
  /** Must equal the runner's own `supportsPause`: the pause checks run only when true. */
  readonly supportsPause: boolean;
  /** The agent under test, named `agent`, using `env.modelUrl` and the tools of `env`. */
  agent(env: RunnerContractEnv): Agent | Promise<Agent>;
  readonly runOption: RunOptionProbe;
  /**
   * The runner serves `Runtime.run` with the framework's non-streaming call (`RunnerInput.drained`):
   * the path checks then see every model request of a `run` made without streaming.
   */
  readonly drainedRun?: boolean;
  /** One of the runner's reserved run options. */
  readonly reservedOption: string;
  /**
   * The agent under test with `env.tools` as the framework's native tools (named `agent`): the
   * durability checks (a crashed, retried or resumed run runs each tool at most once) run when
   * given.
   */
  nativeAgent?(env: NativeToolsEnv): Agent | Promise<Agent>;
}
