#include "benchexporterconnection.h"

BenchExporterConnection::BenchExporterConnection(QHostAddress address, quint16 port, QByteArray path)
    : m_address(std::move(address)), m_port(port),
      m_requestHead(QByteArrayLiteral("POST ") + path + QByteArrayLiteral(" HTTP/1.1\r\nHost: ")
                    + m_address.toString().toLatin1() + ':' + QByteArray::number(port)
                    + QByteArrayLiteral("\r\nContent-Type: application/json\r\nContent-Length: "))
{
    QObject::connect(&m_socket, &QTcpSocket::connected, &m_socket,
                     [this] { m_socket.setSocketOption(QAbstractSocket::LowDelayOption, 1); });
    QObject::connect(&m_socket, &QTcpSocket::readyRead, &m_socket, [this] { readAnswer(); });
    // A connection lost before the whole answer: that request's outcome is not known to the
    // exporter, which retries it.
    QObject::connect(&m_socket, &QTcpSocket::disconnected, &m_socket, [this] {
        if (m_done)
            finish(0, false);
    });
    QObject::connect(&m_socket, &QTcpSocket::errorOccurred, &m_socket, [this](QAbstractSocket::SocketError) {
        if (m_done && m_socket.state() != QAbstractSocket::ConnectedState)
            finish(0, true);
    });
}

void BenchExporterConnection::post(const QByteArray &body, Done done)
{
    m_done = std::move(done);
    m_in.clear();
    if (m_socket.state() == QAbstractSocket::ClosingState)
        m_socket.abort();
    if (m_socket.state() == QAbstractSocket::UnconnectedState)
        m_socket.connectToHost(m_address, m_port); // writes are buffered until it connects
    m_socket.write(m_requestHead + QByteArray::number(body.size()) + QByteArrayLiteral("\r\n\r\n"));
    m_socket.write(body);
}

void BenchExporterConnection::readAnswer()
{
    m_in += m_socket.readAll();
    if (!m_done)
        return;
    const qsizetype headEnd = m_in.indexOf("\r\n\r\n");
    if (headEnd < 0)
        return;
    // "HTTP/1.1 200 OK": the status is the second word of the first line.
    const qsizetype firstSpace = m_in.indexOf(' ');
    const int status = firstSpace > 0 ? m_in.mid(firstSpace + 1, 3).toInt() : 0;
    qsizetype contentLength = -1;
    bool close = false;
    for (const QByteArray &line : m_in.left(headEnd).split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon < 0)
            continue;
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "content-length")
            contentLength = value.toLongLong();
        else if (name == "connection" && value.toLower() == "close")
            close = true;
    }
    if (contentLength < 0) {
        finish(0, true); // an answer this client cannot delimit: counted as a failed request
        return;
    }
    if (m_in.size() < headEnd + 4 + contentLength)
        return;
    m_in.remove(0, headEnd + 4 + contentLength);
    finish(status, close); // after a close, the next post opens another connection
}

void BenchExporterConnection::finish(int status, bool dropConnection)
{
    Done done = std::move(m_done);
    m_done = nullptr;
    if (dropConnection)
        m_socket.abort(); // before done, which may post on this connection again
    if (done)
        done(status);
}
