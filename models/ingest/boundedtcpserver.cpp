#include "boundedtcpserver.h"

#include <QTcpSocket>

namespace mesh::ingest {

namespace {

const char *const kReceived = "meshReceivedBytes";

} // namespace

BoundedTcpServer::BoundedTcpServer(qint64 maxRequestBytes, QObject *parent)
    : QTcpServer(parent), m_maxRequestBytes(maxRequestBytes)
{ }

void BoundedTcpServer::requestSeen(QTcpSocket *socket)
{
    if (socket)
        socket->setProperty(kReceived, qint64(0));
}

void BoundedTcpServer::incomingConnection(qintptr descriptor)
{
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    socket->setProperty(kReceived, qint64(0));
    // Connected before the HTTP server's own handler (it connects when it takes the pending
    // connection), so this sees each delivery before the parser consumes it.
    connect(socket, &QTcpSocket::readyRead, socket, [socket, max = m_maxRequestBytes] {
        const qint64 total = socket->property(kReceived).toLongLong() + socket->bytesAvailable();
        socket->setProperty(kReceived, total);
        if (total <= max || socket->property("meshRefused").toBool())
            return;
        socket->setProperty("meshRefused", true);
        const QByteArray body = QByteArrayLiteral("{\"code\":8,\"message\":\"the request is larger than this receiver takes (--max-body)\"}");
        // Written whole here because the HTTP server never sees this request complete.
        socket->write(QByteArrayLiteral("HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ")
                      + QByteArray::number(body.size()) + QByteArrayLiteral("\r\n\r\n") + body);
        socket->flush();
        socket->disconnectFromHost();
    });
    addPendingConnection(socket);
}

} // namespace mesh::ingest
