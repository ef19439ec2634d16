import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import {
  LogLevel,
  NodejsFunction,
  type OutputFormat,
  SourceMapMode,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  agentsBundling,
  announceBundling,
  BUNDLE,
  bundleDefine,
  externalModules,
} from '../bundling.js';
import { DEFAULT_LAMBDA_RUNTIME, type LambdaRuntime } from '../config.js';

/** The repository root: package.json (with its "imports") and package-lock.json live here. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface KernelFunctionProps {
  readonly entry: string;
  readonly description: string;
  readonly environment?: Record<string, string>;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Replaces `#agents` (package.json "imports") with the user's own agents module. */
  readonly agentsEntry?: string;
  /**
   * Bundle the pinned `@aws-sdk/*` clients instead of using the runtime's copy: the versions the
   * tests ran, at the price of bigger bundles and slower cold starts (docs/benchmarks.md).
   */
  readonly bundleAwsSdk?: boolean;
  /** Default: DEFAULT_LAMBDA_RUNTIME (config.ts). */
  readonly runtime?: LambdaRuntime;
  /** Project folders copied beside the bundle (`lib/playground` → `/var/task/playground`). */
  readonly copyDirs?: readonly string[];
  /** The deployed tracing backends: without an OTel preset the bundle leaves the OTel SDK out. */
  readonly tracing?: readonly string[];
  /** The model key is an SSM parameter: only then does the bundle hold the SSM client. */
  readonly modelParameter?: boolean;
}

const RUNTIMES: Record<LambdaRuntime, Runtime> = {
  'nodejs24.x': Runtime.NODEJS_24_X,
  'nodejs22.x': Runtime.NODEJS_22_X,
};

/**
 * The house Lambda function: Node.js (24 by default) on ARM64, bundled by the local esbuild (never Docker) to
 * minified ESM with source maps, X-Ray active tracing and its own log group with a retention.
 * Its role starts empty: log writing is granted on its own log group only, the rest by `grant*`.
 */
export class KernelFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: KernelFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    // A role of our own, so no AWS managed policy (logs:* on every group) is attached.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    this.logGroup.grant(role, 'logs:CreateLogStream', 'logs:PutLogEvents');
    announceBundling(id, props.agentsEntry);
    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: RUNTIMES[props.runtime ?? DEFAULT_LAMBDA_RUNTIME],
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role,
      environment: { NODE_OPTIONS: BUNDLE.nodeOptions, ...props.environment },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: resolve(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        forceDockerBundling: false,
        // The options of infra/bundling.ts, which bench/bundles.ts builds with too.
        format: BUNDLE.format as OutputFormat,
        target: BUNDLE.target,
        mainFields: [...BUNDLE.mainFields],
        banner: BUNDLE.banner,
        minify: BUNDLE.minify,
        keepNames: BUNDLE.keepNames,
        logLevel: LogLevel.WARNING,
        sourceMap: true,
        sourceMapMode: SourceMapMode.EXTERNAL,
        sourcesContent: BUNDLE.sourcesContent,
        // By default our pinned `@aws-sdk/*` is bundled; `bundleAwsSdk: false` uses the runtime's.
        externalModules: externalModules(props.bundleAwsSdk ?? true),
        define: bundleDefine(props.tracing ?? ['cloudwatch'], {
          modelParameter: props.modelParameter === true,
        }),
        ...(props.agentsEntry ? agentsBundling(props.agentsEntry, PROJECT_ROOT) : {}),
        ...(props.copyDirs ? { commandHooks: copying(props.copyDirs) } : {}),
      },
    });
    if ((props.runtime ?? DEFAULT_LAMBDA_RUNTIME) !== DEFAULT_LAMBDA_RUNTIME) {
      Validations.of(this).acknowledge(
        {
          id: 'AwsSolutions-L1',
          reason:
            'An older Node.js runtime chosen with -c lambdaRuntime (the default is the latest).',
        },
        {
          id: 'Serverless-LambdaLatestVersion',
          reason:
            'An older Node.js runtime chosen with -c lambdaRuntime (the default is the latest).',
        },
      );
    }
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level scoping.',
      },
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'No function is invoked asynchronously (API Gateway and direct invokes wait for the answer; SQS event sources poll): an async dead-letter target would never receive anything. Queue messages dead-letter through their queue redrive policy.',
      },
    );
  }
}

/** Bundling hooks that copy project folders beside the bundle (read at run time, not imported). */
function copying(dirs: readonly string[]) {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) =>
      dirs.map((dir) => `cp -R "${inputDir}/${dir}" "${outputDir}/${basename(dir)}"`),
  };
}
