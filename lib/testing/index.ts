export {
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  startScriptedModelServer,
} from './scripted-model-server.js';
