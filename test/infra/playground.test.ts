import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromContext, InvalidContextError } from '../../infra/config.js';
import {
  logicalId,
  resourcesOf,
  type Synthesised,
  stubFunctionsDir,
  synthesise,
} from './helpers.js';

// `playground=true`: the stream function's URL serves the page, configured with the two APIs;
// cdk-nag (on in `synthesise`) stays clean because no resource is added.
let dir: string;
let withPage: Synthesised;
let without: Synthesised;

beforeAll(() => {
  dir = stubFunctionsDir();
  // Bundled (stub entries bundle in milliseconds): the page must be in the stream bundle.
  withPage = synthesise({ functionsDir: dir, context: { playground: 'true' } });
  without = synthesise({ functionsDir: dir, bundle: false });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const s of [withPage, without]) rmSync(s.outdir, { recursive: true, force: true });
});

function streamFunction(synth: Synthesised) {
  const fn = logicalId(synth.template, 'AWS::Lambda::Function', 'StreamFunction');
  return resourcesOf(synth.template, 'AWS::Lambda::Function')[fn]!.Properties;
}

describe('the playground knob', () => {
  it('is off by default: no page directory, no PlaygroundUrl output', () => {
    const env = streamFunction(without).Environment.Variables;
    expect(env.PLAYGROUND_DIR).toBeUndefined();
    expect(Object.keys(without.template.toJSON().Outputs)).not.toContain('PlaygroundUrl');
  });

  it('serves the page from the stream URL, pointed at the HTTP and WebSocket APIs', () => {
    // Assess: environment and output.
    const env = streamFunction(withPage).Environment.Variables;
    expect(env.PLAYGROUND_DIR).toBe('/var/task/playground');
    const http = logicalId(withPage.template, 'AWS::ApiGatewayV2::Api', 'HttpApi');
    expect(JSON.stringify(env.PLAYGROUND_HTTP_URL)).toContain(http);
    expect(JSON.stringify(env.PLAYGROUND_WS_URL)).toContain('wss://');
    const outputs = withPage.template.toJSON().Outputs;
    const [url] = Object.keys(resourcesOf(withPage.template, 'AWS::Lambda::Url'));
    expect(outputs.PlaygroundUrl.Value).toEqual({ 'Fn::GetAtt': [url, 'FunctionUrl'] });

    // Assess: no resource of its own (so nothing new for cdk-nag), the page in the bundle.
    const count = (s: Synthesised) => Object.keys(s.template.toJSON().Resources).length;
    expect(count(withPage)).toBe(count(without));
    const key = streamFunction(withPage).Code.S3Key as string;
    const asset = join(withPage.outdir, `asset.${key.replace(/\.zip$/, '')}`);
    for (const file of ['index.html', 'app.js', 'view.js', 'style.css']) {
      expect(existsSync(join(asset, 'playground', file)), file).toBe(true);
    }
  });

  it('takes true or false only', () => {
    expect(configFromContext({ playground: 'false' }).playground).toBeUndefined();
    expect(configFromContext({ playground: true }).playground).toBe(true);
    expect(() => configFromContext({ playground: 'yes' })).toThrow(InvalidContextError);
    expect(() => configFromContext({ playground: 'yes' })).toThrow(/playground/);
  });
});
