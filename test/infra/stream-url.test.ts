import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  logicalId,
  resourcesOf,
  type Synthesised,
  stubFunctionsDir,
  synthesise,
} from './helpers.js';

let synth: Synthesised;
let dir: string;

beforeAll(() => {
  dir = stubFunctionsDir();
  synth = synthesise({ functionsDir: dir, bundle: false });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(synth.outdir, { recursive: true, force: true });
});

describe('the stream function', () => {
  it('is behind a response-streaming Function URL and outputs it', () => {
    const urls = Object.values(resourcesOf(synth.template, 'AWS::Lambda::Url'));
    expect(urls).toHaveLength(1);
    const url = urls[0]!.Properties;
    const fn = logicalId(synth.template, 'AWS::Lambda::Function', 'StreamFunction');
    expect(url.TargetFunctionArn).toEqual({ 'Fn::GetAtt': [fn, 'Arn'] });
    expect(url.InvokeMode).toBe('RESPONSE_STREAM');
    // Its auth is the bearer token the function verifies (the authorizer's code).
    expect(url.AuthType).toBe('NONE');
    expect(url.Cors.AllowMethods).toEqual(['POST']);
    expect(Object.keys(synth.template.toJSON().Outputs)).toContain('StreamUrl');
  });

  it('verifies tokens as the authorizer does, and runs up to 15 minutes', () => {
    const resources = resourcesOf(synth.template, 'AWS::Lambda::Function');
    const fn = logicalId(synth.template, 'AWS::Lambda::Function', 'StreamFunction');
    const props = resources[fn]!.Properties;
    expect(props.Timeout).toBe(900);
    expect(props.Environment.Variables.AUTH_MODE).toBe('hs256');
    expect(props.Environment.Variables.JWT_SECRET_NAME).toBeTruthy();
  });
});
