import { AgentKernelError } from '../core/errors.js';

/** Every error lib/tracing raises on purpose; `name` comes from the subclass. */
export class TracingError extends AgentKernelError {}

/** Tracing configuration (from the environment or code) that does not match its schema. */
export class TracingConfigInvalid extends TracingError {
  constructor(detail: string) {
    super('tracing-config-invalid', `Invalid tracing configuration: ${detail}`);
  }
}

/** A trace header that is not `Root=1-xxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx;Parent=…;Sampled=…`. */
export class TraceHeaderInvalid extends TracingError {
  constructor(header: string) {
    super('trace-header-invalid', `Not an X-Ray trace header: "${header.slice(0, 120)}"`);
  }
}

/** Bytes that are not an X-Ray daemon packet (a JSON header line, then a document). */
export class DaemonPacketInvalid extends TracingError {
  constructor(detail: string) {
    super('daemon-packet-invalid', `Not an X-Ray daemon packet: ${detail.slice(0, 120)}`);
  }
}

/** An OTLP export the collector refused (non-2xx) or that failed on the wire; it is dropped. */
export class OtlpExportFailed extends TracingError {
  constructor(detail: string) {
    super('otlp-export-failed', `OTLP export failed: ${detail.slice(0, 300)}`);
  }
}
