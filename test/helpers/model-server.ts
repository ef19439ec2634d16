import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '../../lib/testing/index.js';

// One scripted model server per file, started, reset and closed by hooks instead of boilerplate.
export function useScriptedModelServer(options?: ScriptedModelServerOptions): ScriptedModelServer {
  let server: ScriptedModelServer | undefined;
  beforeAll(async () => {
    server = await startScriptedModelServer(options);
  });
  beforeEach(() => server?.reset(options?.script));
  afterAll(async () => {
    await server?.close();
  });
  return new Proxy({} as ScriptedModelServer, {
    get(_, key) {
      if (!server) throw new Error('useScriptedModelServer(): server used before beforeAll ran');
      const value = Reflect.get(server, key);
      return typeof value === 'function' ? value.bind(server) : value;
    },
  });
}
