import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import {
  LogLevel,
  NodejsFunction,
  OutputFormat,
  SourceMapMode,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The repository root: package.json (with its "imports") and package-lock.json live here. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// ESM bundles still meet CommonJS dependencies that call require().
const CREATE_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

export interface KernelFunctionProps {
  readonly entry: string;
  readonly description: string;
  readonly environment: Record<string, string>;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Replaces `#agents` (package.json "imports") with the user's own agents module. */
  readonly agentsEntry?: string;
}

/**
 * The house Lambda function: Node.js 22 on ARM64, bundled by the local esbuild (never Docker) to
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
    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: resolve(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        banner: CREATE_REQUIRE_BANNER,
        minify: true,
        logLevel: LogLevel.WARNING,
        sourceMap: true,
        sourceMapMode: SourceMapMode.EXTERNAL,
        sourcesContent: false,
        // The Node.js 22 runtime ships AWS SDK v3, but the pinned clients are bundled so the
        // deployed code runs the versions the tests ran.
        bundleAwsSDK: true,
        ...(props.agentsEntry
          ? { esbuildArgs: { '--alias:#agents': resolve(PROJECT_ROOT, props.agentsEntry) } }
          : {}),
      },
    });
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-L1',
        reason: 'Node.js 22 is the pinned runtime: the code and its tests target it (DESIGN.md).',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level scoping.',
      },
    );
  }
}
