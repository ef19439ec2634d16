import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * moto's server (Python, installed on these machines) as Secrets Manager and SSM, and a fake of
 * Lambda's GetAccountSettings (moto has none), both on 127.0.0.1, reached by the real SDK clients
 * through AWS_ENDPOINT_URL_* with dummy credentials.
 */
export interface AwsStandIn {
  readonly motoUrl: string;
  /** What GetAccountSettings answers; `denied` answers 403 AccessDeniedException. */
  lambda: { limit: number; unreserved?: number; denied?: boolean };
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited (${child.exitCode})`);
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function startAwsStandIn(): Promise<AwsStandIn> {
  const port = await freePort();
  const moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: 'ignore',
  });
  const motoUrl = `http://127.0.0.1:${port}`;
  await waitFor(`${motoUrl}/moto-api/`, moto);
  const standIn: AwsStandIn = {
    motoUrl,
    lambda: { limit: 10 },
    stop: async () => {
      await new Promise<void>((resolve) => lambda.close(() => resolve()));
      if (moto.exitCode === null) {
        const exited = new Promise((resolve) => moto.once('exit', resolve));
        moto.kill('SIGTERM');
        await exited;
      }
    },
  };
  const lambda: Server = createServer((req, res) => {
    const { limit, unreserved, denied } = standIn.lambda;
    if (denied) {
      res.writeHead(403, {
        'content-type': 'application/json',
        'x-amzn-errortype': 'AccessDeniedException',
      });
      res.end(JSON.stringify({ Message: 'not authorized to perform: lambda:GetAccountSettings' }));
      return;
    }
    if (!req.url?.startsWith('/2016-08-19/account-settings')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        AccountLimit: {
          ConcurrentExecutions: limit,
          UnreservedConcurrentExecutions: unreserved ?? limit,
          CodeSizeUnzipped: 262144000,
          CodeSizeZipped: 52428800,
          TotalCodeSize: 80530636800,
        },
        AccountUsage: { FunctionCount: 0, TotalCodeSize: 0 },
      }),
    );
  });
  await new Promise<void>((resolve) => lambda.listen(0, '127.0.0.1', resolve));
  const lambdaUrl = `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: motoUrl,
    AWS_ENDPOINT_URL_SSM: motoUrl,
    AWS_ENDPOINT_URL_LAMBDA: lambdaUrl,
    AWS_EC2_METADATA_DISABLED: 'true',
  });
  delete process.env.AWS_PROFILE;
  return standIn;
}
