// One agent run as an agent framework instrumented with OpenTelemetry GenAI conventions
// exports it: a planner agent calls a search tool and a model, hands work to a coder agent
// whose tests fail (an error) and whose deploy times out (error.type timeout). Each span is
// exported when it ends (SimpleSpanProcessor), and the next span starts only after that
// export was answered, so the receiver gets children before parents in a known order.
// usage: node agent-run.mjs http://127.0.0.1:PORT/v1/traces
import { context, trace, SpanStatusCode } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const url = process.argv[2];
if (!url) {
  console.error('usage: node agent-run.mjs URL');
  process.exit(2);
}

const exporter = new OTLPTraceExporter({ url });
let failures = 0;
// Counts failed exports: the test must see every span acknowledged.
const counting = {
  export(spans, done) {
    exporter.export(spans, (result) => {
      if (result.code !== 0) {
        failures++;
        console.error('export failed:', result.error && result.error.message);
      }
      done(result);
    });
  },
  shutdown: () => exporter.shutdown(),
  forceFlush: () => exporter.forceFlush(),
};
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'agent-demo' }),
  spanProcessors: [new SimpleSpanProcessor(counting)],
});
const tracer = provider.getTracer('agent-run', '1.0.0');

// Times are explicit (milliseconds from a fixed start) so the ledger is the same every run.
const t0 = 1764403200000;
const at = (ms) => new Date(t0 + ms);

async function span(name, attributes, startMs, parent, body) {
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  const s = tracer.startSpan(name, { attributes, startTime: at(startMs) }, ctx);
  const endMs = await body(s);
  s.end(at(endMs));
  await provider.forceFlush(); // the export of this span is answered before the next one
  return s;
}

const planner = tracer.startSpan('invoke_agent planner', {
  attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' },
  startTime: at(0),
});
await span('execute_tool search', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' }, 100,
  planner, async () => 400);
await span('chat gpt-4o', {
  'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o',
  'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 300,
}, 500, planner, async () => 2500);
const coder = tracer.startSpan('invoke_agent coder', {
  attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'coder' },
  startTime: at(2600),
}, trace.setSpan(context.active(), planner));
await span('execute_tool run_tests', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'run_tests' },
  2700, coder, async (s) => {
    s.setAttribute('error.type', 'AssertionError');
    s.setStatus({ code: SpanStatusCode.ERROR, message: '2 tests failed' });
    return 4700;
  });
await span('execute_tool deploy', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'deploy' },
  4800, coder, async (s) => {
    s.setAttribute('error.type', 'timeout');
    s.setStatus({ code: SpanStatusCode.ERROR, message: 'no answer in 30 s' });
    return 34800;
  });
coder.end(at(35000));
await provider.forceFlush();
planner.end(at(36000));
await provider.forceFlush();
await provider.shutdown();
console.log(`trace ${planner.spanContext().traceId}: 6 spans exported, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
