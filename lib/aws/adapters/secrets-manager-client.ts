/**
 * The two Secrets Manager exports the kernel uses. Imported lazily through this module rather
 * than the package itself: a dynamic import of the package keeps every command and paginator in
 * the bundle (the namespace could reach any of them); named re-exports let esbuild drop the rest.
 */
export { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
