import { context, propagation, trace, Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ClientInterceptors } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';

/**
 * OpenTelemetry traces, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans go over
 * OTLP/HTTP (JSON) to `<endpoint>/v1/traces`. Off, nothing is registered: the API's tracer is
 * OpenTelemetry's no-op, no span is made, no `traceparent` is stored or sent.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Puts the active trace into the headers of each workflow started (Temporal's interceptor). */
  readonly clientInterceptors: ClientInterceptors | undefined;
  /** Activity spans and the sink that exports the workflow's spans; empty when off. */
  readonly workerOptions: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  /** Bundled into the workflow code when on: the workflow's spans (a second bundle, so off costs nothing). */
  readonly workflowInterceptorModules: string[];
  /** Exports what is still buffered. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = {
  enabled: false,
  clientInterceptors: undefined,
  workerOptions: {},
  workflowInterceptorModules: [],
  shutdown: async () => undefined,
};

/** The workflow interceptors of Temporal's OpenTelemetry package, for bundling. */
export const TRACING_WORKFLOW_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

let started: Tracing | undefined;

/** Once per process: the global tracer provider, W3C propagation and async context. */
export const startTracing = (env: NodeJS.ProcessEnv = process.env): Tracing => {
  if (started) return started;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return OFF;
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'action-triggers' });
  // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and _TRACES_ENDPOINT, _HEADERS) itself.
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  const on: Tracing = {
    enabled: true,
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    workerOptions: {
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: makeWorkflowExporter(processor, resource) },
    },
    workflowInterceptorModules: TRACING_WORKFLOW_MODULES,
    shutdown: () => provider.shutdown(),
  };
  started = on;
  return on;
};

export const tracer = () => trace.getTracer('action-triggers');

/** Whether this process exports spans: off, a request makes no span at all (not even a no-op one). */
export const tracingOn = () => started !== undefined;

/** The active trace as headers to send (`traceparent`, `tracestate`); empty when tracing is off. */
export const traceHeaders = (): Record<string, string> => {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
};

/** The active context as a W3C `traceparent`, or undefined (tracing off, or no span). */
export const activeTraceparent = (): string | undefined => traceHeaders().traceparent;

/** The context a stored `traceparent` names (the root context for none). */
export const contextOf = (traceparent: string | undefined): Context =>
  traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
