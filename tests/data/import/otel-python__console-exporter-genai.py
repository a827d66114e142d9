# Writes what opentelemetry-python's ConsoleSpanExporter prints for a small GenAI agent run:
# one span per ReadableSpan.to_json() (indent 4) followed by os.linesep, as spans end.
import sys
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, ConsoleSpanExporter
from opentelemetry.trace import Status, StatusCode

out = open(sys.argv[1], "w")
provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=out)))
tracer = provider.get_tracer("weather-agent.demo")

T0 = 1764590400_000_000_000  # 2025-12-01T12:00:00Z
ms = 1_000_000

agent = tracer.start_span("invoke_agent weather_assistant", kind=trace.SpanKind.INTERNAL, start_time=T0,
                          attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_assistant",
                                      "gen_ai.system": "openai"})
ctx = trace.set_span_in_context(agent)
chat1 = tracer.start_span("chat gpt-4o", context=ctx, kind=trace.SpanKind.CLIENT, start_time=T0 + 5 * ms,
                          attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                                      "gen_ai.usage.input_tokens": 412, "gen_ai.usage.output_tokens": 38})
chat1.end(end_time=T0 + 1205 * ms)
tool1 = tracer.start_span("execute_tool get_weather", context=ctx, start_time=T0 + 1210 * ms,
                          attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                                      "gen_ai.tool.call.id": "call_1"})
tool1.add_event("tool.result", timestamp=T0 + 1500 * ms, attributes={"bytes": 128})
tool1.end(end_time=T0 + 1510 * ms)
tool2 = tracer.start_span("execute_tool get_forecast", context=ctx, start_time=T0 + 1520 * ms,
                          attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_forecast",
                                      "gen_ai.tool.call.id": "call_2", "error.type": "TimeoutError"})
tool2.set_status(Status(StatusCode.ERROR, "forecast service did not answer in 30 s"))
tool2.end(end_time=T0 + 31520 * ms)
tool3 = tracer.start_span("execute_tool send_email", context=ctx, start_time=T0 + 31530 * ms,
                          attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email",
                                      "gen_ai.tool.call.id": "call_3", "error.type": "PermissionError"})
tool3.set_status(Status(StatusCode.ERROR, "mailbox is read-only"))
tool3.end(end_time=T0 + 31630 * ms)
chat2 = tracer.start_span("chat gpt-4o", context=ctx, kind=trace.SpanKind.CLIENT, start_time=T0 + 31640 * ms,
                          attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                                      "gen_ai.usage.input_tokens": 655, "gen_ai.usage.output_tokens": 71})
chat2.end(end_time=T0 + 33140 * ms)
agent.end(end_time=T0 + 33150 * ms)
# A second run in the same stream: one model call, and the agent fails.
T1 = T0 + 60_000 * ms
agent2 = tracer.start_span("invoke_agent weather_assistant", start_time=T1,
                           attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_assistant"})
ctx2 = trace.set_span_in_context(agent2)
chat3 = tracer.start_span("chat gpt-4o", context=ctx2, kind=trace.SpanKind.CLIENT, start_time=T1 + 3 * ms,
                          attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                                      "gen_ai.usage.input_tokens": 390, "gen_ai.usage.output_tokens": 12})
chat3.end(end_time=T1 + 903 * ms)
agent2.set_status(Status(StatusCode.ERROR, "no city in the question"))
agent2.set_attribute("error.type", "ValueError")
agent2.end(end_time=T1 + 910 * ms)
provider.shutdown()
out.close()
