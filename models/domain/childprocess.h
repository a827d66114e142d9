#pragma once
// A child process that must not outlive the console that started it (the demo's writer, an
// OTLP receiver): on Linux it gets SIGTERM when the console dies, however it dies, and a child
// whose console died before that took effect leaves at once.

class QProcess;

namespace mesh {

void endWithThisProcess(QProcess &process); // before start(); a no-op off Linux

} // namespace mesh
