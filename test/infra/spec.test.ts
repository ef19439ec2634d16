import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CfnSpec } from './cfn-spec.js';
import { type Synthesised, stubFunctionsDir, synthesise } from './helpers.js';

// Every resource of the synthesized templates against CloudFormation's resource specification
// (@aws-cdk/aws-service-spec), not against what CDK believes.
let spec: CfnSpec;
const synths: Synthesised[] = [];
let dir: string;

beforeAll(async () => {
  spec = await CfnSpec.load();
  dir = stubFunctionsDir();
  for (const context of [
    { modelSecretName: 'agent-kernel/openai', alarmEmail: 'ops@example.com' },
    {
      deliveryMode: 'direct',
      authMode: 'jwks',
      jwksUrl: 'https://id.example.com/jwks.json',
      jwtIssuer: 'https://id.example.com/',
      jwtAudience: 'kernel',
      apiGatewayAccountRole: 'none',
      modelParameterName: '/agent-kernel/key',
      tableDeletionProtection: 'false',
    },
  ]) {
    synths.push(synthesise({ functionsDir: dir, bundle: false, context }));
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const s of synths) rmSync(s.outdir, { recursive: true, force: true });
});

describe('CloudFormation resource specification', () => {
  it.each([0, 1])('configuration %i: every resource is valid', (i) => {
    const template = synths[i]!.template.toJSON() as Parameters<CfnSpec['validate']>[0];
    expect(Object.keys(template.Resources).length).toBeGreaterThan(50);
    expect(spec.validate(template)).toEqual([]);
  });

  it('finds what is wrong: unknown type, missing and unknown properties, bad enum, bad GetAtt', () => {
    const problems = spec.validate({
      Resources: {
        Nope: { Type: 'AWS::Nope::Thing', Properties: {} },
        Fn: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            Code: { ZipFile: 'x', Bucket: 'b' },
            Runtime: { Ref: 'Anything' },
            TracingConfig: { Mode: 'Sometimes' },
          },
        },
        Queue: {
          Type: 'AWS::SQS::Queue',
          Properties: {
            Visibility: 30,
            Tags: [{ Key: 'a', Value: { 'Fn::GetAtt': ['Fn', 'Nope'] } }],
          },
        },
      },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'Nope: unknown resource type AWS::Nope::Thing',
        'Fn.Role: required property missing',
        'Fn.Code.Bucket: unknown property',
        expect.stringMatching(/^Fn\.TracingConfig\.Mode: "Sometimes" is not one of/),
        'Queue.Visibility: unknown property',
        'Fn::GetAtt Fn.Nope: AWS::Lambda::Function has no such attribute',
      ]),
    );
  });
});
