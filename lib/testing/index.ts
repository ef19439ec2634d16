// Public test helpers that load no test runner; the vitest-based kits have their own subpaths.

export { lambdaContext as fakeLambdaContext } from './lambda-context.js';
export {
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  startScriptedModelServer,
} from './scripted-model-server.js';
