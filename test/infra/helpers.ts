import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { configFromContext } from '../../infra/config.js';
import { PROJECT_ROOT } from '../../infra/constructs/kernel-function.js';
import { FUNCTION_NAMES, type FunctionName } from '../../infra/functions.js';
import { AgentKernelStack } from '../../infra/stack.js';

/**
 * A functions/ stand-in with one-line entries, so every function of the table is wired (and
 * bundled in milliseconds). It must sit under the project root, as NodejsFunction requires.
 */
export function stubFunctionsDir(names: readonly FunctionName[] = FUNCTION_NAMES): string {
  const cache = join(PROJECT_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'infra-test-'));
  for (const name of names) {
    // `#agents` keeps the entry honest: the alias (or package.json "imports") must resolve it.
    const body =
      name === 'invoke'
        ? "import * as agents from '#agents';\nexport const handler = async () => agents;\n"
        : 'export const handler = async () => ({});\n';
    writeFileSync(join(dir, `${name}.ts`), body);
  }
  return dir;
}

export interface Synthesised {
  readonly template: Template;
  readonly stack: AgentKernelStack;
  readonly outdir: string;
  readonly validationReport: { pluginReports: unknown[] };
}

/** One app, one stack, cdk-nag AwsSolutions and Serverless on; `bundle: false` skips esbuild entirely. */
export function synthesise(options: {
  context?: Record<string, unknown>;
  functionsDir: string;
  bundle?: boolean;
}): Synthesised {
  const outdir = mkdtempSync(join(PROJECT_ROOT, 'node_modules', '.cache', 'infra-out-'));
  const app = new App({
    outdir,
    context: options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {},
  });
  const stack = new AgentKernelStack(app, 'Kernel', {
    config: configFromContext(options.context ?? {}),
    functionsDir: options.functionsDir,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  // Throws ValidationFailed when cdk-nag reports a finding nobody acknowledged.
  app.synth();
  return {
    template: Template.fromStack(stack),
    stack,
    outdir,
    validationReport: JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')),
  };
}

export type Resources = Record<string, { Type: string; Properties?: any; Metadata?: any }>;

export function resourcesOf(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** The logical id of the one resource of `type` named `prefix` plus CDK's 8-digit hash. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const pattern = new RegExp(`^${prefix}[0-9A-F]{8}$`);
  const ids = Object.keys(resourcesOf(template, type)).filter((id) => pattern.test(id));
  if (ids.length !== 1) throw new Error(`${prefix}: ${ids.length} ${type} resources`);
  return ids[0]!;
}

/** One IAM statement, readable: `Ref`/`GetAtt` as the logical id without its hash, `<AWS::Region>`. */
export interface Grant {
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly condition?: unknown;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** `{"Fn::GetAtt": ["StoreTable0A1B2C3D", "Arn"]}` → `StoreTable.Arn`; joins flattened. */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, any>;
  const name = (id: string) => id.replace(/[0-9A-F]{8}$/, '');
  if (v.Ref) return String(v.Ref).startsWith('AWS::') ? `<${v.Ref}>` : name(v.Ref);
  if (v['Fn::GetAtt']) return `${name(v['Fn::GetAtt'][0])}.${v['Fn::GetAtt'][1]}`;
  if (v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(render).join(v['Fn::Join'][0]);
  return JSON.stringify(value);
}

/**
 * Every statement of every policy attached to the role of the function `functionPrefix`
 * (e.g. `FanoutFunction`), one `Grant` per statement, sorted, actions and resources sorted.
 */
export function grantsOf(template: Template, functionPrefix: string): Grant[] {
  const functions = resourcesOf(template, 'AWS::Lambda::Function');
  const fn = functions[logicalId(template, 'AWS::Lambda::Function', functionPrefix)]!;
  const role = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const grants: Grant[] = [];
  for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
    if (!list(policy.Properties.Roles).some((r: any) => r.Ref === role)) continue;
    for (const s of policy.Properties.PolicyDocument.Statement as any[]) {
      if (s.Effect !== 'Allow' || s.NotAction || s.NotResource) {
        throw new Error(`${functionPrefix}: unexpected statement ${JSON.stringify(s)}`);
      }
      grants.push({
        actions: list(s.Action).map(String).sort(),
        resources: list(s.Resource).map(render).sort(),
        ...(s.Condition ? { condition: s.Condition } : {}),
      });
    }
  }
  const roleResource = resourcesOf(template, 'AWS::IAM::Role')[role]!;
  // Inline and managed policies on the role itself would escape the check above.
  if (roleResource.Properties.Policies || roleResource.Properties.ManagedPolicyArns) {
    throw new Error(`${functionPrefix}: its role has inline or managed policies`);
  }
  return grants.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
